import sys

from . import main
from .large import cli as large
from .train_compare import cli as train_compare

if "--large" in sys.argv[1:]:
    large(sys.argv[1:])  # large.py's own options
elif "--compare" in sys.argv[1:]:
    train_compare(sys.argv[1:])  # the training comparison, app against CLI (train_compare.py)
else:
    main()
