"""Tests of the popgesture client library against the real popgestured binary.

    python3 -m unittest discover -s clients/python/tests -t clients/python

The binary: $POPGESTURED_BINARY, else <repo>/.build/debug/popgestured. Missing, the
daemon tests skip, or fail when $CI is set.
"""
