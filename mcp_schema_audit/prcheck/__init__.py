"""The pull-request check: a base revision built in a git worktree and the current checkout, each side's server
captured the same way (``sides``), with the revision, worktree, setup commands and started servers in ``base``.
``schema-audit check`` and the GitHub Action both run it."""
