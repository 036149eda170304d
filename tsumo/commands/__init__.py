"""Sub-commands of `tsumo`; each module has `register(subparsers)` and sets `run` as a default."""
