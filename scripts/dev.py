#!/usr/bin/env python3
"""The two commands of the README, with nothing but Python on the machine.

    python3 scripts/dev.py run    # set up, start embedded services, migrate, seed the demo club,
                                  # run web server + Celery workers (clocks, pushes) + beat; Ctrl-C stops all
    python3 scripts/dev.py test   # set up, start embedded services, ruff, mypy, pytest
    python3 scripts/dev.py manage ARGS   # manage.py ARGS on the development profile (beside `run`)
    python3 scripts/dev.py deploy-check  # the production stack on a real container engine (scripts/deploy_check.py)

Set-up creates `.venv` and installs `requirements.lock` (pinned; with uv, else pip) when it or the production pins it
includes (`requirements/production.lock`) changed.
When DATABASE_URL / REDIS_URL are set, those servers are used instead of the embedded ones.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / "bin" / "python"
LOCK = ROOT / "requirements.lock"
PRODUCTION_LOCK = ROOT / "requirements" / "production.lock"  # included by LOCK; the production image's alone
STAMP = VENV / ".requirements.sha256"
INSTALLER = "uv==0.13.8"


def say(message: str) -> None:
    print(f"==> {message}", flush=True)


def ensure_venv() -> None:
    """Create the virtual environment and install the pinned packages if the lock changed."""
    wanted = hashlib.sha256(LOCK.read_bytes() + PRODUCTION_LOCK.read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text().strip() == wanted and VENV_PYTHON.exists():
        return
    if not VENV_PYTHON.exists():
        say("creating the virtual environment in .venv")
        venv.EnvBuilder(with_pip=True).create(VENV)
    say("installing pinned packages from requirements.lock")
    began = time.monotonic()
    install_locked()
    STAMP.write_text(wanted)
    say(f"installed in {time.monotonic() - began:.0f}s")


def install_locked() -> None:
    """The lock's packages into .venv with uv (pinned by INSTALLER): about 6 s from PyPI against pip's 30 here.
    When uv cannot (no wheel for this machine, an index only pip's configuration names), pip installs them."""
    pip = [str(VENV_PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    uv = VENV / "bin" / "uv"
    try:
        if not uv.exists():
            subprocess.run([*pip, INSTALLER], check=True)
        subprocess.run(
            # Compiled at install, as pip does: where PYTHONDONTWRITEBYTECODE is set (this machine), every process
            # would otherwise compile Django and the rest again (1.7 s against 0.5 s to import them).
            [str(uv), "pip", "install", "--quiet", "--compile-bytecode", "--native-tls", "--python", str(VENV_PYTHON)]
            + ["-r", str(LOCK)],
            check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        say("uv could not install the lock (its error is above); pip installs it")
        subprocess.run([*pip, "-r", str(LOCK)], check=True)


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def service_env() -> tuple[dict[str, str], bool]:
    """Environment with DATABASE_URL and REDIS_URL, starting the embedded servers if needed.

    Also returns whether this call started them: only then does this command stop them, so a
    second terminal running the tests never pulls the database from under a running site.
    """
    env = dict(os.environ)
    if env.get("DATABASE_URL") and env.get("REDIS_URL"):
        return env, False
    sys.path.insert(0, str(ROOT))
    from config.embedded import ensure_services

    started = time.monotonic()
    urls = ensure_services()
    say(f"embedded PostgreSQL and Redis ready in {time.monotonic() - started:.1f}s (data in .data/)")
    for key, value in urls.as_env().items():
        env.setdefault(key, value)
    return env, urls.started


def stop_embedded(started: bool) -> None:
    if not started:
        return
    from config.embedded import stop_services

    stop_services()
    say("embedded PostgreSQL and Redis stopped")


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)


def manage_local(args: list[str]) -> int:
    """manage.py on the development profile (manage.py alone defaults to production); without DATABASE_URL
    it finds this checkout's embedded servers as `run` does."""
    env = {**os.environ}
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env).returncode


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def run(port: int) -> int:
    sys.path.insert(0, str(ROOT))
    from config.serve import ProxyTrustError, web_command

    try:
        web_command(host="127.0.0.1", port=port, environ=os.environ)
    except ProxyTrustError as error:
        say(str(error))
        return 2
    # A terminal closing or `kill` stops everything as Ctrl-C does.
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)
    env, started_services = service_env()
    env.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    env.setdefault("SITE_URL", f"http://127.0.0.1:{port}")  # links in the "your turn" emails
    # Migrations run as the owner role, which then grants the application role its rights; the
    # site, the worker and beat connect as the application role only (docs/settings-and-security.md, "The two database roles").
    owner = ["--database", "owner"] if env.get("DATABASE_OWNER_URL") else []
    manage(env, "migrate", "--noinput", *owner)
    env.pop("DATABASE_OWNER_URL", None)
    manage(env, "seed_demo", "--url", f"http://127.0.0.1:{port}/")
    # Celery as "python -m celery": a console script's shebang names the interpreter's old path once
    # the virtualenv is moved.
    celery = [str(VENV / "bin" / "python"), "-m", "celery"]
    data = ROOT / ".data"
    commands = {
        # Forwarded headers are trusted only from FORWARDED_ALLOW_IPS (default: nobody); see config/serve.py.
        "web": web_command(host="127.0.0.1", port=port, environ=env, extra=["--lifespan", "off"]),
        # The clocks' worker reads the default queue only; pushes have a worker of their own, so a push
        # service that never answers holds up pushes, never a turn's clock (notices/webpush.py).
        "worker": [
            *celery,
            "-A",
            "config",
            "worker",
            "--pool",
            "threads",
            "--concurrency",
            "4",
            "--queues",  # and the club imports, at most CLUB_IMPORTS_AT_ONCE at a time (clubdata/jobs.py)
            f"{env.get('CELERY_QUEUE', 'celery')},{env.get('CLUB_IMPORT_QUEUE', 'imports')}",
            "--hostname",
            "worker@%h",
            "--loglevel",
            "INFO",
        ],
        "push": [
            *celery,
            "-A",
            "config",
            "worker",
            "--pool",
            "threads",
            "--concurrency",
            "4",
            "--queues",
            env.get("PUSH_QUEUE", "push"),
            "--hostname",
            "push@%h",
            "--loglevel",
            "INFO",
        ],
        "beat": [
            *celery,
            "-A",
            "config",
            "beat",
            "--loglevel",
            "INFO",
            "--schedule",
            str(data / "celerybeat-schedule"),
        ],
    }
    supervisor = Supervisor(commands, env)
    say(f"the club site is at http://127.0.0.1:{port}/  (Ctrl-C stops everything)")
    status = 0
    try:
        status = supervisor.watch()
    except KeyboardInterrupt:
        pass
    finally:
        supervisor.stop_all()
        stop_embedded(started_services)
    return status


class Supervisor:
    """Runs the web server, the worker and beat. A worker or beat that exits is started again after a
    pause that doubles on each quick crash (1 s up to RESTART_MAX_DELAY s; back to 1 s once it has
    run STABLE_SECONDS), so a Redis or PostgreSQL restart never takes the site down. The web server
    exiting stops everything: it is what the person at the terminal watches."""

    RESTARTED = ("worker", "push", "beat")
    RESTART_MAX_DELAY = 30.0
    STABLE_SECONDS = 60.0

    def __init__(self, commands: dict[str, list[str]], env: dict[str, str]) -> None:
        self.commands = commands
        self.env = env
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.started_at: dict[str, float] = {}
        self.delay: dict[str, float] = dict.fromkeys(commands, 1.0)
        self.restart_at: dict[str, float] = {}
        for name in commands:
            self.start(name)

    def start(self, name: str) -> None:
        process = subprocess.Popen(self.commands[name], cwd=ROOT, env=self.env, start_new_session=True)
        self.processes[name] = process
        self.started_at[name] = time.monotonic()
        say(f"{name} started (pid {process.pid})")

    def watch(self) -> int:
        """Supervise until the web server exits (its status is returned) or Ctrl-C."""
        while True:
            now = time.monotonic()
            for name, process in list(self.processes.items()):
                if name in self.restart_at:
                    if now >= self.restart_at[name]:
                        del self.restart_at[name]
                        self.start(name)
                    continue
                code = process.poll()
                if code is None:
                    if now - self.started_at[name] >= self.STABLE_SECONDS:
                        self.delay[name] = 1.0
                    continue
                if name not in self.RESTARTED:
                    say(f"{name} exited with {code}; stopping the rest")
                    return code or 1
                delay = self.delay[name]
                say(f"{name} exited with {code}; restarting it in {delay:.0f}s")
                self.restart_at[name] = now + delay
                self.delay[name] = min(delay * 2, self.RESTART_MAX_DELAY)
            time.sleep(0.5)

    def stop_all(self) -> None:
        running = [p for name, p in self.processes.items() if name not in self.restart_at and p.poll() is None]
        for process in running:
            os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)


# One worker more than the cores: it fills the long tests' waits (a browser, a Celery worker, a clock). On two
# cores pytest took 385 s with two workers, 333 s with three (the cores 89% busy) and 319 s with four; two a
# core left too little for the tests with real deadlines beside other work (bench/RESULTS.md, "The test command").
EXTRA_WORKERS = 1


def on_every_core(pytest_args: list[str]) -> list[str]:
    """The whole suite (or a -k/-m selection of it) runs on every core with pytest-xdist, one worker more than
    the cores, whole files to a worker, the longest first (tests/schedule.py); named test files run in this
    one process, and -n / --dist / -p no:xdist choose for themselves. Each xdist worker has its own databases,
    Redis key prefix and Celery queues (config/settings/test.py) and picks free ports."""
    chosen = any(arg.startswith(("-n", "--numprocesses", "--dist")) or arg == "no:xdist" for arg in pytest_args)
    named = any(arg.startswith("tests/") and (ROOT / arg.split("::")[0]).exists() for arg in pytest_args)
    if chosen or named:
        return pytest_args
    workers = (os.cpu_count() or 1) + EXTRA_WORKERS
    return ["-n", str(workers), "--dist", "loadfile", "--no-loadscope-reorder", *pytest_args]


def test(pytest_args: list[str]) -> int:
    env, started_services = service_env()
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.test"
    bin_dir = VENV / "bin"
    try:
        checks = [
            ("ruff", [str(bin_dir / "ruff"), "check", "."]),
            ("ruff format", [str(bin_dir / "ruff"), "format", "--check", "."]),
        ]
        for name, cmd in checks:
            code = step(name, cmd, env)
            if code != 0:
                return code
        # mypy runs beside pytest: one core for 10 to 40 s on a clean clone (no cache), while pytest's workers start,
        # collect and wait for the one that migrates the run's database. Its report follows pytest's.
        with tempfile.TemporaryFile() as mypy_out:
            say("mypy: (project config), beside pytest")
            began = time.monotonic()
            mypy = subprocess.Popen(
                [str(bin_dir / "mypy")], cwd=ROOT, env=env, stdout=mypy_out, stderr=subprocess.STDOUT
            )
            mypy_took: list[float] = []  # its own seconds, noted when it ends

            def note_the_end() -> None:
                mypy.wait()
                mypy_took.append(time.monotonic() - began)

            timer = threading.Thread(target=note_the_end)
            timer.start()
            try:
                code = step("pytest", [str(bin_dir / "pytest"), *on_every_core(pytest_args)], env)
            finally:
                timer.join()
            mypy_out.seek(0)
            sys.stdout.buffer.write(mypy_out.read())
            sys.stdout.flush()
            say(f"mypy took {mypy_took[0]:.0f}s (beside pytest)")
            mypy_code = mypy.returncode
        if mypy_code != 0:
            say(f"mypy failed (exit {mypy_code})")
            return mypy_code
        return code
    finally:
        stop_embedded(started_services)


def step(name: str, cmd: list[str], env: dict[str, str]) -> int:
    say(f"{name}: {' '.join(cmd[1:]) or '(project config)'}")
    began = time.monotonic()
    code = subprocess.run(cmd, cwd=ROOT, env=env).returncode
    say(f"{name} took {time.monotonic() - began:.0f}s")
    if code != 0:
        say(f"{name} failed (exit {code})")
    return code


def main() -> int:
    args = sys.argv[1:]
    if not args or args[0] not in {"run", "test", "setup", "manage", "deploy-check"}:
        print(__doc__)
        return 2
    if args[0] in {"run", "manage"}:
        # The development profile, set before anything imports config: config/celery.py would set production.
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
    ensure_venv()
    if not in_venv():
        os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), str(Path(__file__).resolve()), *args])
    os.chdir(ROOT)
    if args[0] == "setup":
        return 0
    if args[0] == "run":
        return run(int(os.environ.get("PORT", "8000")))
    if args[0] == "manage":
        return manage_local(args[1:])
    if args[0] == "deploy-check":
        sys.path.insert(0, str(ROOT / "scripts"))
        from deploy_check import deploy_check

        return deploy_check(args[1:])
    return test(args[1:])


if __name__ == "__main__":
    sys.exit(main())
