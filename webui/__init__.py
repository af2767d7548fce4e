"""Who needs to see it? The Flask dashboard, judge review, streamer overlay, setup and the match log."""
