"""Who this server is on the wire. The protocol version is declared here and nowhere else."""

PROTOCOL_VERSION = "2.3"
SERVER_NAME = "loreweaver-django"
VERSION = "0.1.0"
