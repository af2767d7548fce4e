"""The ``tableref`` command line: a thin layer over the packages' public functions."""
