import sys

from certdp.cli import main

sys.exit(main())
