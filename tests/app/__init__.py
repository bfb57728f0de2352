"""Pilot tests: the real app, driven the way a person drives it."""
