import sys

from . import main
from .large import cli as large

large(sys.argv[1:]) if "--large" in sys.argv[1:] else main()  # --large: large.py's own options
