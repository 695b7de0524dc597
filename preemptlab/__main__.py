from preemptlab.cli import main

raise SystemExit(main())
