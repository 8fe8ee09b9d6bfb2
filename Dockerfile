# The table server image: the same code runs `serve` (daphne: HTTP + WebSocket) and
# `iroh_serve` (the Iroh sidecar); docker-compose.yml picks the command.
FROM python:3.11.13-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TRPG_DATA_DIR=/data

WORKDIR /app
COPY requirements.lock .
RUN pip install --no-cache-dir --require-hashes -r requirements.lock

COPY . .
RUN useradd --create-home --uid 1000 table \
    && mkdir -p /data \
    && chown table:table /data
USER table
VOLUME ["/data"]

EXPOSE 8765 4433/udp
CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py serve --host 0.0.0.0 --port 8765"]
