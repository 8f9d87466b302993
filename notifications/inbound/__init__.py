"""Inbound mail: a reply to a turn email takes the turn (issue 14).

``grammar`` reads a line as a move (pure), ``vocabulary`` gives it the player's words,
``body`` finds the lines the player wrote, ``handler`` checks and applies a whole message,
``answers`` writes the answer email; ``receive_mail`` (stdin) and ``smtpd`` (an SMTP listener)
are the ways in.
"""
