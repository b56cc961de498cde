# The site's production image: the production pins only (requirements/production.lock; no test or
# development tool), the code without secrets or history (.dockerignore), run as the unprivileged user
# `club`, who can write nowhere in /app. docs/operations.md, "The image".
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
COPY requirements/production.lock requirements/
RUN pip install --no-cache-dir --root-user-action=ignore -r requirements/production.lock
COPY . .
RUN SECRET_KEY=build-only-build-only-build-only-build-only-build-only \
    DATABASE_URL=postgresql://build@localhost/build REDIS_URL=redis://localhost:6379/0 \
    python manage.py collectstatic --noinput \
    && useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin club \
    && install -d -o club -g club -m 0700 /backups
USER club
EXPOSE 8000
# uvicorn with the site's flags: forwarded headers only from FORWARDED_ALLOW_IPS (config/serve.py).
CMD ["python", "-m", "config.serve", "--host", "0.0.0.0", "--port", "8000"]
