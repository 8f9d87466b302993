"""Playing with friends (issue 28): invitations to a table or a club, rematches, challenges."""
