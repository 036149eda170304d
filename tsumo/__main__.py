from tsumo.cli import main

raise SystemExit(main())
