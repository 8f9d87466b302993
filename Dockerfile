# The app image: web (gunicorn, the default command), worker and beat all run it;
# docker-compose.yml picks the command of each service.
FROM python:3.11-slim

# PYTHONPATH: the code runs from /app, where manage.py and templates/ are. It is not installed
# as a package, so every module (and settings.BASE_DIR) comes from /app.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/app

# gettext: msgfmt, which compilemessages needs.
RUN apt-get update \
    && apt-get install --yes --no-install-recommends gettext \
    && rm -rf /var/lib/apt/lists/*

# The user the services run as: not root, no home, no login shell.
RUN groupadd --system --gid 10001 keltis \
    && useradd --system --uid 10001 --gid keltis --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin keltis

WORKDIR /app

# Dependencies first, read from pyproject.toml alone: this layer is rebuilt only when they
# change, not on every change of the code.
# PyICU (display names' look-alike check) is built against Debian's ICU: its headers,
# pkg-config and a C++ compiler are installed for the build and removed after it, the ICU
# library (libicuNN) is kept.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > /tmp/requirements.txt \
    && apt-get update \
    && apt-get install --yes --no-install-recommends g++ libicu-dev pkg-config \
    && pip install --requirement /tmp/requirements.txt \
    && apt-mark manual $(dpkg-query --show --showformat='${Package}\n' 'libicu[0-9]*') \
    && apt-get purge --yes --auto-remove g++ libicu-dev pkg-config \
    && rm -rf /var/lib/apt/lists/* /tmp/requirements.txt

COPY manage.py gunicorn.conf.py ./
COPY keltis_site keltis_site
COPY accounts accounts
COPY games games
COPY tournaments tournaments
COPY friends friends
COPY talk talk
COPY notifications notifications
COPY live live
COPY api api
COPY templates templates
COPY locale locale

# Translations (.po -> .mo), then the static files (hashed, compressed copies in staticfiles/,
# which whitenoise serves when DEBUG is off). Importing the settings needs a key when DEBUG
# is off: a throwaway one, set for these two commands only, like the in-memory broker (which
# keeps settings from creating the file-system queue). Nothing secret ends up in the image.
RUN DEBUG=False SECRET_KEY=build-time-only-not-a-secret CELERY_BROKER_URL=memory:// \
        python manage.py compilemessages \
    && DEBUG=False SECRET_KEY=build-time-only-not-a-secret CELERY_BROKER_URL=memory:// \
        python manage.py collectstatic --noinput --verbosity 0

# var/ is where the local defaults write (the file-system broker, emails as files).
RUN mkdir var && chown keltis:keltis var

USER keltis
EXPOSE 8000
CMD ["gunicorn", "--config", "gunicorn.conf.py"]
