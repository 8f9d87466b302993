# The app image: web, worker and beat all run it (docker-compose.yml picks the command).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY accounts accounts
COPY games games
COPY keltis_site keltis_site
COPY tournaments tournaments
COPY templates templates
COPY manage.py ./
RUN pip install --no-cache-dir .
