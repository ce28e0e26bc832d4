"""The HTTP edge: the server, request input, rate limits, event-stream slots, the Content-
Security-Policy and safe logs.
"""
