"""Who needs to see it? The Flask dashboard, judge review, streamer overlay, setup and the match log.

``create_app(test_config=None)`` builds the app (see :mod:`webui.app`); the record is
:mod:`webui.store`; :mod:`webui.record` is the one way to change a match.
"""


def create_app(test_config=None):
    from webui.app import create_app as _create

    return _create(test_config)
