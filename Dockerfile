# MCP Churn Lab in a container: the wheel (with its templates, static files and content) on a slim
# Python, run as an unprivileged user.
#   docker build -t mcp-churn-lab .
#   docker run --rm -p 8000:8000 -e LESSON_SECRET_KEY=change-me mcp-churn-lab

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md ./
COPY lesson ./lesson
COPY templates ./templates
COPY static ./static
COPY content ./content
# The app's wheel and every dependency's, so the final stage installs without building anything.
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin lesson
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index /wheels/*.whl && rm -rf /wheels
USER lesson
WORKDIR /home/lesson
# Statements and grades wait here until sent (docs/outbox.md): mount a volume on it to keep them
# across a new container, or point LESSON_OUTBOX_URL at Redis.
ENV LESSON_OUTBOX_URL=sqlite:////home/lesson/outbox/outbox.sqlite3
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["python", "-c", "import urllib.request as u; u.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
# The production server (gunicorn, two worker processes; any worker continues any playground).
CMD ["lesson", "serve", "--host", "0.0.0.0", "--port", "8000", "--workers", "2"]
