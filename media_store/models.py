"""Media index and blobs arrive with the media issue."""
