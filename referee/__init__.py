"""What happened? Calls on the board in mat mm with their margin: ``Verdict`` yes / no / too_close."""
