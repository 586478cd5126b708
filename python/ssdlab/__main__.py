"""``python -m ssdlab`` = the ``ssdlab`` command."""
from ssdlab.cli import main

main()
