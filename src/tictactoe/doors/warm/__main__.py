"""`python -m tictactoe.doors.warm FD MODULE[:FUNCTION]...`: the warm parent
(`tictactoe.doors.warm.parent.main`)."""

import sys

from tictactoe.doors.warm.parent import main

sys.exit(main(sys.argv[1:]))
