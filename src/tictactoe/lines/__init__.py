"""The game line by line, for screen readers and braille displays: `tictactoe --plain`.

Another view at the same tables as the full-screen game (`tictactoe.play`), and no Textual: every
rule and every word comes from the core (`tictactoe.core.narration`); this view only reads lines
and prints sentences.

- `view`: `LineView`, what a table tells it, said one sentence a line;
- `play`: the session: the table, the record, a line read at a time until `q`;
- `online`: a friend's seat online (`tictactoe join --plain`); `hosting`: the host's
  (`tictactoe host --plain`);
- `record`: the record's words, read out.
"""
