"""Table talk (issue 29): what the players of a game write to one another."""
