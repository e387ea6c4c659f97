import sys

from neurips26.common import warm_start

code = warm_start.run(sys.argv[1:])  # None unless NEURIPS26_WARM_START=1 and a server is up (common/warm_start.py)
if code is None:
    from neurips26.cli import main

    code = main()
sys.exit(code)
