FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
COPY requirements.lock .
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN SECRET_KEY=build-only-build-only-build-only-build-only-build-only \
    DATABASE_URL=postgresql://build@localhost/build REDIS_URL=redis://localhost:6379/0 \
    python manage.py collectstatic --noinput
RUN useradd --create-home club && chown -R club /app && mkdir -p /backups && chown club /backups
USER club
EXPOSE 8000
# uvicorn with the site's flags: forwarded headers only from FORWARDED_ALLOW_IPS (config/serve.py).
CMD ["python", "-m", "config.serve", "--host", "0.0.0.0", "--port", "8000"]
