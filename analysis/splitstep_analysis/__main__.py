"""python -m splitstep_analysis: the splitstep-analysis command."""
import sys

from .cli import main

sys.exit(main())
