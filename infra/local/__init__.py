"""The platform on one laptop: AWS emulated on 127.0.0.1, the apps served over HTTP."""
