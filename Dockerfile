# The web and worker image: the Django project (web: gunicorn; worker and beat: Celery).
# It installs nothing from the network: the pinned packages come from a wheelhouse made on
# the host, so it builds with `docker build --network none` on any base with Python 3.11.
#   scripts/build-app-image      (makes var/wheelhouse, then builds; see docs/deploy.md)
# By hand:  pip download --only-binary=:all: --python-version 3.11 -d var/wheelhouse \
#             -r var/wheelhouse/requirements.txt pip   (requirements: pyproject's list)
#           docker build --network none -t cardjudge/app .
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}

ENV PATH=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    LANG=C.UTF-8 \
    DJANGO_SETTINGS_MODULE=tournaments.config.settings

# The packages, into a virtualenv; pip is run from its own wheel, as Debian's Python has
# no pip (and a public slim image's pip is not needed).
COPY var/wheelhouse/ /tmp/wheelhouse/
RUN python3 -c "import sys; assert sys.version_info[:2] == (3, 11), sys.version" \
    && python3 -m venv --without-pip /opt/venv \
    && pip_wheel=$(ls /tmp/wheelhouse/pip-*.whl) \
    && /opt/venv/bin/python "$pip_wheel/pip" install --no-cache-dir --no-index \
        --disable-pip-version-check --find-links /tmp/wheelhouse \
        -r /tmp/wheelhouse/requirements.txt \
    && rm -rf /tmp/wheelhouse

WORKDIR /app
COPY manage.py pyproject.toml ./
COPY judge/ judge/
COPY sandbox/ sandbox/
COPY tournaments/ tournaments/
COPY seeds/ seeds/
COPY starters/ starters/
# The documentation the site serves at /docs/ and /rules/ (rendered from these files).
COPY docs/ docs/
# Static files, served by whitenoise from the image; data lives in volumes (/app/var).
# A throwaway key for this one command, so that no key is made and kept in the image.
RUN DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --no-input -v 0 \
    && mkdir -p /app/var/media \
    && groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --home-dir /app app \
    && chown -R app:app /app/var

# Web and beat run as `app`; the worker runs as root (compose sets it), because it talks
# to the Docker engine through its socket and hands each bot's pipes to the bot's user.
USER app
EXPOSE 8000
CMD ["gunicorn", "tournaments.config.wsgi:application", "--bind", "0.0.0.0:8000", \
     "--workers", "3", "--access-logfile", "-"]
