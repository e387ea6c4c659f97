import sys

from neurips26.cli import main

sys.exit(main())
