"""The production backend: each bot in a hardened, throw-away Docker container.

This is the only module that talks to Docker (through the Docker SDK). Every container:
no network; a read-only root; all capabilities dropped but those PID 1 needs to become
the bot's user (it starts as the container's root, out of the bot's reach); no new
privileges; the bot as the unprivileged ``nobody`` with no capability; an init (PID 1)
that reaps orphans; the seccomp profile of
``sandbox.seccomp`` (Docker's default without io_uring); no IPC namespace to share; the
``none`` log driver (output never reaches the engine's log files); the caps of
``Limits`` (memory with equal swap, CPU, processes, open files, file size, a small
``noexec`` /tmp, a wall clock); labels naming the match and the worker process, so
containers left by a worker that died are found and removed (``remove_leftovers``).
Those settings are written down as data in ``sandbox.container_spec``, the bot's code
archive in ``sandbox.code_archive``; the engine calls are all here.

The bot's code reaches the container through the API (an archive put into the created
container's own ``/bot`` volume, read-only to the bot), never through a bind mount of
the worker's folders, so this works as well from a worker that itself runs in a
container with the engine's socket mounted in. The channel is ``sandbox.pipes`` (FIFOs
in a per-seat folder) where a pipe root is configured, else ``sandbox.attach``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any, Final

import docker
import docker.errors
from docker.models.containers import Container
from docker.types import Mount

from sandbox import cgroups, userns
from sandbox.attach import AttachChannel
from sandbox.builds import BuildLimits, BuildStore, build_key, command, run_build
from sandbox.channel import Channel
from sandbox.code_archive import pack_code
from sandbox.container_spec import (
    BECOME_BOT,
    BOT_UID,
    CGROUP_LABEL,
    CODE_DIR,
    EXPIRES_LABEL,
    LABEL,
    MATCH_LABEL,
    OWNER_LABEL,
    SEAT_LABEL,
    START_CAPS,
    START_USER,
    SUPERVISOR_LABEL,
    checked_env,
    container_labels,
    hardened,
    owner_alive,
    owner_id,
    reused_settings,
    ulimits,
)
from sandbox.limits import Limits
from sandbox.parallel import SeatStart
from sandbox.pipes import (
    FIFOS,
    MOUNT_POINT,
    PipeChannel,
    SeatFolder,
    check_reachable,
    remove_seat_folder,
)
from sandbox.pool import ContainerPool, PoolLimits
from sandbox.removal import Removals, wait_all
from sandbox.reuse import CONTROL, ReusedSeat, SeatBroken
from sandbox.runtimes import BUILD_DIR, PYTHON, BotBuild, Runtime, detect
from sandbox.streams import StreamChannel
from sandbox.tally import CONTAINER_STARTS

log = logging.getLogger(__name__)

#: The Python runtime's image (JUDGE_BOT_IMAGE overrides it); other runtimes' images are
#: in sandbox.runtimes.
DEFAULT_IMAGE: Final = PYTHON.image
#: Engine API calls give up after this many seconds (so close never hangs for good).
API_TIMEOUT_S: Final = 30
#: How long close waits for the engine to finish removing a container that exited.
REMOVAL_WAIT_S: Final = 10

#: gVisor's runtime (a kernel per sandbox: ``DockerBackend(runtime=)``).
GVISOR: Final = "runsc"
#: The prefix of the workers' cgroups: each worker process puts its bot containers under
#: a top-level cgroup of its own (``worker_cgroup``; ``DockerBackend(bot_shares=)``).
BOTS_CGROUP: Final = "cardjudge-bots"
#: Each worker's CPU weight: four busy host processes' worth (a host process weighs 1024).
#: Under the engine's /docker, all containers of the host together weigh one process;
#: under one shared group, all workers' bots would weigh as one worker (docs/sandbox.md).
BOT_SHARES: Final = 4096
#: Whether reused containers fork Python bots from a zygote unless JUDGE_SANDBOX_ZYGOTE
#: says otherwise (docs/sandbox.md, "A zygote per container").
ZYGOTE_DEFAULT: Final = True


def bot_shares_from_env() -> int:
    """JUDGE_BOT_CPU_SHARES (0: the engine's own parent), else ``BOT_SHARES``."""
    text = os.environ.get("JUDGE_BOT_CPU_SHARES", "").strip()
    if not text:
        return BOT_SHARES
    if not text.isdigit() or not (int(text) == 0 or 2 <= int(text) <= 262_144):
        raise ValueError(
            f"JUDGE_BOT_CPU_SHARES={text!r}: give a CPU weight from 2 to 262144 "
            "(a host process weighs 1024), or 0 for the engine's default cgroup"
        )
    return int(text)


def zygote_from_env() -> bool:
    """JUDGE_SANDBOX_ZYGOTE: whether a pooled (or reused) Python bot's container forks
    each seating's bot from a zygote (``sandbox.supervisor``): 1 (default) or 0."""
    text = os.environ.get("JUDGE_SANDBOX_ZYGOTE", "").strip().lower()
    if text in ("", "1", "on", "yes", "true"):
        return ZYGOTE_DEFAULT if not text else True
    if text in ("0", "off", "no", "false"):
        return False
    raise ValueError(f"JUDGE_SANDBOX_ZYGOTE={text!r}: give 1 (fork each bot from a zygote) or 0")


class SandboxError(RuntimeError):
    """The sandbox cannot run bots (no engine, no image, an engine error): not the bot's
    fault, worth retrying once the cause is fixed."""


def connect(timeout: int = API_TIMEOUT_S) -> docker.DockerClient:
    """A client for the engine of the environment (DOCKER_HOST, or the local socket);
    ``timeout``: seconds each call may take (a health probe asks for a short one)."""
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except docker.errors.DockerException as error:
        raise SandboxError(
            f"the Docker engine is not answering ({error}); run scripts/bootstrap as root "
            "to install and start it"
        ) from error
    return client


class FromEnvironment:
    """The default of ``DockerBackend(pipe_root=...)``: read JUDGE_PIPE_ROOT."""


FROM_ENV: Final = FromEnvironment()


def pipe_root_from_env() -> Path | None:
    """The seat-folder root from JUDGE_PIPE_ROOT; None (unset or empty) means attach."""
    value = os.environ.get("JUDGE_PIPE_ROOT", "").strip()
    return Path(value) if value else None


class DockerBackend:
    """Starts bots in containers; safe to use from several threads at once.

    ``pipe_root``: the root of the per-seat pipe folders (default: JUDGE_PIPE_ROOT); None
    means the slower attach stream. ``clean`` removes leftovers of dead workers
    first (see ``remove_leftovers``). ``grace_s``: how long ``close`` lets a bot finish
    after its input ends (its last words on stderr are kept) before removing it.
    """

    name = "docker"

    def __init__(
        self,
        *,
        image: str | None = None,
        pipe_root: Path | FromEnvironment | None = FROM_ENV,
        client: docker.DockerClient | None = None,
        clean: bool = True,
        grace_s: float = 0.5,
        builds: BuildStore | None = None,
        build_limits: BuildLimits | None = None,
        cgroup_parent: str | None = None,
        pool_limits: PoolLimits | None = None,
        bot_shares: int | None = None,
        runtime: str | None = None,
        zygote: bool | None = None,
    ) -> None:
        self.grace_s = grace_s
        #: Reused containers fork each Python bot from a zygote (JUDGE_SANDBOX_ZYGOTE).
        self.zygote = zygote_from_env() if zygote is None else zygote
        #: The engine's OCI runtime for bot containers (JUDGE_SANDBOX_RUNTIME; None: the
        #: engine's default, runc): ``runsc`` puts each bot under a kernel of its own
        #: (gVisor; docs/sandbox.md, "A kernel per sandbox").
        self.runtime = runtime or os.environ.get("JUDGE_SANDBOX_RUNTIME", "").strip() or None
        self.client = client or connect()
        try:
            info = self.client.info()
        except docker.errors.DockerException as error:
            raise SandboxError(f"the Docker engine did not describe itself: {error}") from error
        #: The engine's cgroup parent for every container: JUDGE_CGROUP_PARENT, else one
        #: of ``bot_shares`` CPU weight where it can be made, else the engine's default
        #: (/docker). See docs/sandbox.md, "CPU under load".
        self.cgroup_parent = cgroup_parent or os.environ.get("JUDGE_CGROUP_PARENT") or None
        if self.cgroup_parent is None:
            self.cgroup_parent = self._weighted_parent(info, bot_shares)
        self.image = image or os.environ.get("JUDGE_BOT_IMAGE", DEFAULT_IMAGE)
        if isinstance(pipe_root, FromEnvironment):
            pipe_root = pipe_root_from_env()
        # gVisor (runsc 2022-12, Debian's) does not carry the seat folders' FIFOs well:
        # no write on a read-only mount, lines lost mid-match, a seating's FIFOs made
        # after the start not seen. Its bots use the attach stream (the fresh lifecycle).
        self.pipe_root = None if self.runtime == GVISOR else pipe_root
        #: The engine's user-namespace remap: the host's ids of a container's users, to
        #: whom the seat folders' FIFOs belong (``sandbox.userns``).
        try:
            self.ids = userns.from_engine_info(info)
            if self.ids.remapped and self.pipe_root is not None:
                check_reachable(self.pipe_root)
        except ValueError as error:
            raise SandboxError(str(error)) from error
        if self.runtime is not None and self.runtime not in (info.get("Runtimes") or {}):
            known = ", ".join(sorted(info.get("Runtimes") or {}))
            raise SandboxError(
                f"the engine has no runtime {self.runtime!r} (JUDGE_SANDBOX_RUNTIME; it has "
                f"{known}): register it with dockerd (docs/sandbox.md, 'A kernel per sandbox')"
            )
        try:
            self.client.images.get(self.image)
        except docker.errors.ImageNotFound as error:
            raise SandboxError(
                f"the bot image {self.image} is missing; run scripts/build-bot-image "
                "(scripts/bootstrap does it too)"
            ) from error
        self.builds = builds or BuildStore()
        self.build_limits = build_limits or BuildLimits()
        #: Where warm seats' containers are removed after close (off the critical path).
        self.removals = Removals()
        #: Reused containers kept between matches (``sandbox.pool``).
        self.pool = ContainerPool(pool_limits)
        self._supervised_images: dict[str, bool] = {}
        if clean:
            remove_leftovers(self.client)

    def _weighted_parent(self, info: Mapping[str, Any], shares: int | None) -> str | None:
        """This worker's own cgroup (``worker_cgroup``), weighing ``shares``
        (JUDGE_BOT_CPU_SHARES, default ``BOT_SHARES``; 0: the engine's default), on an
        engine with the cgroupfs driver (cgroup v1 or v2). Where this process cannot
        make it (a worker in a container of its own), the engine makes it at its
        default weight, one group per worker container (``worker_cgroup(False)``)."""
        if shares is None:
            shares = bot_shares_from_env()
        if not shares or info.get("CgroupDriver") != "cgroupfs":
            return None
        made = cgroups.weighted_parent(worker_cgroup(), shares)
        return made or f"/{worker_cgroup(per_process=False)}"

    def _cpu_counter(self, container: Container) -> cgroups.CpuCounter:
        """The container's CPU seconds, from its cgroup (``sandbox.cgroups``): each bot's
        clock (``judge.bot_clock``)."""
        return cgroups.CpuCounter(str(container.id), self.cgroup_parent)

    def image_of(self, runtime: Runtime) -> str:
        """The image a runtime's bots run (and build) in; SandboxError if it is missing."""
        if runtime is PYTHON:
            return self.image
        try:
            self.client.images.get(runtime.image)
        except docker.errors.ImageNotFound as error:
            raise SandboxError(
                f"the {runtime.name} runtime image {runtime.image} is missing; run "
                "scripts/build-runtime-images (scripts/bootstrap does it too)"
            ) from error
        return runtime.image

    def build(self, code: Path, *, label: str = "build") -> Runtime:
        """Compile the bot now if its language needs it (``prepared`` says more)."""
        return self.prepared(code, label=label)[0]

    def prepared(self, code: Path, *, label: str = "build") -> tuple[Runtime, bytes]:
        """The bot's runtime and the archive its container runs: the sources as they are
        for Python and JavaScript, else the compiler's output, built once per content
        (see ``sandbox.builds``). BadBotCode (BuildFailed for a compiler's refusal) says
        what is wrong with the bot; SandboxError is the engine's fault."""
        wanted = detect(Path(code))
        source = pack_code(Path(code))
        if not wanted.runtime.compiled:
            return wanted.runtime, source
        image = self.image_of(wanted.runtime)
        key = build_key(wanted, str(self.client.images.get(image).id), source)
        artefact = self.builds.get(key)
        if artefact is None:
            settings = self._build_settings(wanted, image, label)
            try:
                artefact = run_build(self.client, settings, source, self.build_limits)
            except docker.errors.DockerException as error:
                raise SandboxError(f"building a bot failed: {error}") from error
            self.builds.put(key, artefact)
        return wanted.runtime, artefact

    def start(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> Channel:
        runtime, archive = self.prepared(code, label=label)
        seat = self._seat_folder(label, BOT_UID, FIFOS) if self.pipe_root else None
        container: Container | None = None
        try:
            container = self.client.containers.create(
                **self._settings(runtime, label, limits, env or {}, seat)
            )
            if not container.put_archive(CODE_DIR, archive):
                raise SandboxError("the engine refused the bot's code archive")
            timer = threading.Timer(limits.wall_clock_s, _kill, args=(container,))
            timer.daemon = True
            channel = self._channel(container, seat, limits, timer)
            channel.cpu_clock = self._cpu_counter(container)
            try:
                container.start()
            except BaseException:
                channel.close()
                raise
            CONTAINER_STARTS.add()
        except BaseException as error:
            if container is not None:
                _remove(container)
            if seat is not None:
                seat.remove()
            if isinstance(error, docker.errors.DockerException):
                raise SandboxError(f"starting a bot container failed: {error}") from error
            raise
        timer.start()
        return channel

    def can_prestart(self) -> bool:
        """Warm starts (``prestart``) need the FIFO transport."""
        return self.pipe_root is not None

    def prestart(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> WarmChannel:
        """A warm seat: its container started, the bot's program held back until the
        channel's ``go`` (so none of its code runs before its seating begins), removed in
        the background once closed (``WarmChannel.removed`` says when it is gone).

        The hardening is ``start``'s; the code comes read-only from the seat folder (a
        bind mount, no engine call to copy it in). Needs a pipe root (SandboxError).
        """
        seat, container, timer = self._created_in_seat(code, label, limits, env, reused=False)
        removal = _removal(container, seat, timer)
        channel = WarmChannel(seat, limits, self.grace_s, removal, self.removals)
        channel.cpu_clock = self._cpu_counter(container)
        try:
            container.start()
            CONTAINER_STARTS.add()
        except BaseException as error:
            channel.close()
            channel.wait_removed(API_TIMEOUT_S + REMOVAL_WAIT_S)
            if isinstance(error, docker.errors.DockerException):
                raise SandboxError(f"starting a bot container failed: {error}") from error
            raise
        timer.start()
        return channel

    def can_reuse(self, code: Path) -> bool:
        """Whether the bot in ``code`` can have a reused container (``start_reused``,
        ``start_pooled``): the FIFO transport, and an image with the supervisor's
        interpreter (the Python bot image; a runtime image labelled
        ``cardjudge.supervisor``, as scripts/build-runtime-images makes them)."""
        if self.pipe_root is None:
            return False
        runtime = detect(Path(code)).runtime
        return runtime is PYTHON or self._supervised_image(self.image_of(runtime))

    def _supervised_image(self, image: str) -> bool:
        if image not in self._supervised_images:
            labels = self.client.images.get(image).labels or {}
            self._supervised_images[image] = labels.get(SUPERVISOR_LABEL) == "python3"
        return self._supervised_images[image]

    def start_reused(
        self,
        code: Path,
        *,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None = None,
    ) -> ReusedSeat:
        """A container for every seating of a match (``sandbox.reuse``): the supervisor
        running as PID 1 and greeted, no bot process yet (``ReusedSeat.spawn``)."""
        return self._supervised(code, label, limits, env)

    def pool_key(self, seat: SeatStart) -> str:
        """What makes a pooled container interchangeable: the bot's runnable archive, its
        runtime and image, and the container's limits (``sandbox.pool``)."""
        runtime, archive = self.prepared(seat.code, label=seat.label)
        digest = hashlib.sha256(archive)
        digest.update(f"\0{runtime.name}\0{self.image_of(runtime)}\0{seat.limits!r}".encode())
        digest.update(b"\0zygote" if self.zygote else b"")
        return digest.hexdigest()

    def start_pooled(self, seat: SeatStart, label: str) -> ReusedSeat:
        """A reused container for many matches (``sandbox.pool``): no environment of a
        seat's (each seating gets its own through ``spawn``), labelled ``label``, living
        and labelled to expire as long as the pool allows, with a wall clock per seating."""
        lifetime = dataclasses.replace(seat.limits, wall_clock_s=self.pool.limits.age_s + 60)
        return self._supervised(seat.code, label, lifetime, None, per_seating=seat.limits)

    def _supervised(
        self,
        code: Path,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None,
        *,
        per_seating: Limits | None = None,
    ) -> ReusedSeat:
        """A started container whose PID 1 is the supervisor, greeted; ``per_seating``:
        the limits of each seating, whose wall clock then kills the container."""
        seat, container, timer = self._created_in_seat(code, label, limits, env, reused=True)
        removal = _removal(container, seat, timer)
        reused = ReusedSeat(
            seat,
            per_seating or limits,
            self.grace_s,
            (self.ids.host_uid(BOT_UID), self.ids.host_gid(BOT_UID)),
            removal,
            self.removals,
            kill=(lambda: _kill(container)) if per_seating else None,
            cpu=self._cpu_counter(container),
        )
        try:
            container.start()
            CONTAINER_STARTS.add()
            timer.start()
            reused.greeted()
        except BaseException as error:
            reused.close()
            reused.wait_removed(API_TIMEOUT_S + REMOVAL_WAIT_S)
            if isinstance(error, docker.errors.DockerException | SeatBroken):
                raise SandboxError(f"starting a reused bot container failed: {error}") from error
            raise
        return reused

    def _created_in_seat(
        self,
        code: Path,
        label: str,
        limits: Limits,
        env: Mapping[str, str] | None,
        *,
        reused: bool,
    ) -> tuple[SeatFolder, Container, threading.Timer]:
        """A created (not started) container whose code and FIFOs are in a new seat
        folder, and its wall clock (not started); a reused one runs the supervisor."""
        if self.pipe_root is None:
            raise SandboxError("warm and reused seats need a pipe root (JUDGE_PIPE_ROOT)")
        runtime, archive = self.prepared(code, label=label)
        if reused:  # the control FIFOs are the supervisor's (root's), not the bot's
            seat = self._seat_folder(label, 0, CONTROL)
        else:
            seat = self._seat_folder(label, BOT_UID, FIFOS)
        container: Container | None = None
        try:
            seat.put_code(archive)
            settings = self._settings(runtime, label, limits, env or {}, seat, code_in_seat=True)
            forked = runtime.zygote_modules(archive) if self.zygote else ()
            container = self.client.containers.create(
                **(reused_settings(settings, runtime, zygote=forked) if reused else settings)
            )
        except BaseException as error:
            if container is not None:
                _remove(container)
            seat.remove()
            if isinstance(error, docker.errors.DockerException):
                raise SandboxError(f"creating a bot container failed: {error}") from error
            raise
        timer = threading.Timer(limits.wall_clock_s, _kill, args=(container,))
        timer.daemon = True
        return seat, container, timer

    def _seat_folder(self, label: str, owner: int, fifos: tuple[str, ...]) -> SeatFolder:
        """A seat folder whose FIFOs belong to the container's user ``owner`` (uid and
        gid), as the host sees it."""
        assert self.pipe_root is not None
        uid, gid = self.ids.host_uid(owner), self.ids.host_gid(owner)
        return SeatFolder.create(self.pipe_root, label, uid, fifos, bot_gid=gid)

    def _channel(
        self,
        container: Container,
        seat: SeatFolder | None,
        limits: Limits,
        wall_clock: threading.Timer,
    ) -> StreamChannel:
        def stop() -> None:
            wall_clock.cancel()
            _remove(container)

        if seat is not None:
            return PipeChannel(seat, limits, stop, self.grace_s)
        params = {"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
        raw = self.client.api.attach_socket(str(container.id), params=params)
        sock: socket.socket = getattr(raw, "_sock", raw)

        def stop_attached() -> None:
            # Nobody reads the stream any more: hang it up, or the engine, blocked writing
            # a flooding bot's output to it, would not remove the container.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            stop()

        return AttachChannel(sock, limits, stop_attached, self.grace_s)

    def _settings(
        self,
        runtime: Runtime,
        label: str,
        limits: Limits,
        env: Mapping[str, str],
        seat: SeatFolder | None,
        *,
        code_in_seat: bool = False,
    ) -> dict[str, Any]:
        if seat is not None and code_in_seat:
            code = Mount(target=CODE_DIR, source=str(seat.code), type="bind", read_only=True)
        else:
            code = Mount(target=CODE_DIR, source="", type="volume")
        mounts = [code]
        labels = container_labels(label, limits.wall_clock_s, self.cgroup_parent)
        program = list(runtime.run)
        if seat is not None:
            mounts.append(
                Mount(target=MOUNT_POINT, source=str(seat.path), type="bind", read_only=True)
            )
            labels[SEAT_LABEL] = str(seat.path)
            program = seat.command(program)
        mib = 1 << 20
        return {
            **hardened(limits.memory_mb, limits.cpus, limits.pids, self.cgroup_parent),
            **({"runtime": self.runtime} if self.runtime else {}),
            "user": START_USER,
            "cap_add": list(START_CAPS),
            "image": self.image_of(runtime),
            "command": [*BECOME_BOT, *program],
            "environment": {**checked_env(env), "PYTHONUNBUFFERED": "1", "HOME": "/tmp"},
            "labels": labels,
            "tmpfs": {"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmp_mb}m,mode=1777"},
            "ulimits": ulimits(limits.open_files, limits.file_size_mb * mib),
            "mounts": mounts,
            "stdin_open": seat is None,  # the SDK adds StdinOnce: see AttachChannel
            "auto_remove": True,
        }

    def _build_settings(self, wanted: BotBuild, image: str, label: str) -> dict[str, Any]:
        """A bot container's hardening with a compiler's budget (sandbox.builds)."""
        limits = self.build_limits
        return {
            **hardened(limits.memory_mb, limits.cpus, limits.pids, self.cgroup_parent),
            **({"runtime": self.runtime} if self.runtime else {}),
            "image": image,
            "command": command(wanted, limits),
            "environment": {"HOME": "/tmp", "TMPDIR": "/tmp"},
            "labels": container_labels(f"{label}-build", limits.wall_clock_s, self.cgroup_parent),
            # Compilers run helpers (as, ld, cc1plus) from the image, never from /tmp.
            "tmpfs": {"/tmp": f"rw,noexec,nosuid,nodev,size={limits.tmp_mb}m,mode=1777"},
            "ulimits": ulimits(256, limits.output_bytes),
            "mounts": [
                Mount(target=CODE_DIR, source="", type="volume"),
                Mount(target=BUILD_DIR, source="", type="volume"),
            ],
            "auto_remove": False,  # its output is read after it exits
        }


def _remove(container: Container) -> None:
    """Kill and delete a container with its code volume; fine if it is already gone.

    Every process of it is killed through its cgroup first (``sandbox.cgroups``), so
    the engine's kill, which signals PID 1 only, finds nothing it must wait for. A
    container that exited on its own is being removed by the engine (auto-remove):
    wait for that to finish, so that "closed" means "gone". A container that exits
    while the engine kills it for the removal can fail that removal with "is not
    running" (seen once on Docker 28, leaving it "Removal In Progress"): asked again, the
    engine removes it.
    """
    _end_processes(container)
    deadline = time.monotonic() + REMOVAL_WAIT_S
    while True:
        try:
            container.remove(force=True, v=True)
            return
        except docker.errors.NotFound:
            return
        except docker.errors.APIError as error:
            if not _removal_race(error) or time.monotonic() > deadline:
                raise
        time.sleep(0.02)


def _removal_race(error: docker.errors.APIError) -> bool:
    """Whether a failed removal raced the engine's own (auto-remove in progress, or the
    container exited while it was being killed): asking again ends it."""
    return error.status_code == 409 or "is not running" in str(error.explanation or "")


class WarmChannel(PipeChannel):
    """A warm seat's channel (``DockerBackend.prestart``): gated until ``go``; closing it
    hands the container's removal to the backend's ``Removals`` and returns."""

    def __init__(
        self,
        seat: SeatFolder,
        limits: Limits,
        grace_s: float,
        removal: Callable[[], None],
        removals: Removals,
    ) -> None:
        super().__init__(seat, limits, self._remove_later, grace_s, gated=True)
        self._removal = removal
        self._removals = removals
        self._removed: Future[None] | None = None

    def close(self) -> None:
        if not self.started:  # its program never ran: no last words to wait for
            self._grace_s = 0.0
        super().close()

    def _remove_later(self) -> None:
        self._removed = self._removals.submit(self._removal)

    def _release(self) -> None:
        self._close_descriptors()  # the removal job deletes the folder, after the container

    def removed(self) -> Future[None] | None:
        """The background removal once closed (None before close)."""
        return self._removed

    def wait_removed(self, timeout: float) -> bool:
        """Whether the container is gone within ``timeout`` seconds (False if not closed)."""
        removed = self._removed
        return removed is not None and wait_all([removed], timeout)


def _removal(container: Container, seat: SeatFolder, timer: threading.Timer) -> Callable[[], None]:
    """The job that ends a warm seat: kill and delete the container, then its folder."""

    def job() -> None:
        timer.cancel()
        try:
            _remove(container)
        finally:
            seat.remove()

    return job


def _kill(container: Container) -> None:
    """The wall clock ran out: kill the bot (its channel then reads as closed)."""
    _end_processes(container)
    with contextlib.suppress(docker.errors.DockerException):
        container.kill()


def _end_processes(container: Container) -> None:
    """Kill every process of the container through its cgroup, where the worker sees it
    (a container known only from a listing, without its settings: in the parent its
    label names, else in the ones earlier versions used)."""
    host = container.attrs.get("HostConfig") or {}
    labels = container.attrs.get("Config", {}).get("Labels") or {}
    if "CgroupParent" in host:  # inspected (a listing's row has the network mode only)
        parents = [host["CgroupParent"] or None]
    else:
        parents = [labels.get(CGROUP_LABEL) or None, f"/{BOTS_CGROUP}", None]
    for parent in parents:
        if container.id and cgroups.kill_all(str(container.id), parent):
            return


def remove_leftovers(
    client: docker.DockerClient | None = None, *, everything: bool = False, label_prefix: str = ""
) -> int:
    """Remove bot containers that nobody will close, and their pipe folders.

    Stale means: made by a worker process of this host that no longer runs, or past its
    wall clock (from any host). ``everything`` removes every bot container of the
    engine (for a single-worker deployment, or a test's final check). ``label_prefix``
    limits both to containers whose label (as given to ``start``) begins with it: one
    deployment's, on an engine that several share. Returns how many were removed.
    """
    client = client or connect()
    removed = 0
    for container in _listed(client):
        labels = container.labels
        if not labels.get(MATCH_LABEL, "").startswith(label_prefix):
            continue
        expired = float(labels.get(EXPIRES_LABEL, "0") or 0) < time.time()
        if everything or expired or not owner_alive(labels.get(OWNER_LABEL, "")):
            try:
                _remove(container)
            except docker.errors.APIError:
                log.exception("could not remove leftover bot container %s", container.id)
                continue
            if labels.get(SEAT_LABEL):
                remove_seat_folder(Path(labels[SEAT_LABEL]))
            removed += 1
    clean_worker_cgroups()
    return removed


def worker_cgroup(per_process: bool = True) -> str:
    """The top-level cgroup of this worker's bot containers: of this process (host tag,
    PID and start time, so that a dead worker's is found again: ``clean_worker_cgroups``),
    or, for a worker that cannot make cgroups, of its host (a worker container)."""
    host = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]
    if not per_process:
        return f"{BOTS_CGROUP}-{host}"
    _, pid, started = owner_id().rsplit(":", 2)
    return f"{BOTS_CGROUP}-{host}-{pid}-{started}"


def clean_worker_cgroups() -> int | None:
    """Remove the empty cgroups of this host's worker processes that no longer run;
    how many, or None where this process cannot see the host's cgroups to do it."""
    if not cgroups.top_groups(""):
        return None
    mine = worker_cgroup(per_process=False)
    removed = 0
    for name in cgroups.top_groups(f"{mine}-"):
        pid, _, started = name.removeprefix(f"{mine}-").partition("-")
        owner = f"{socket.gethostname()}:{pid}:{started}"
        if not owner_alive(owner) and cgroups.remove_group(name):
            removed += 1
    return removed


def bot_containers(client: docker.DockerClient | None = None) -> list[Container]:
    """Every container this module made that still exists (tests check none is left)."""
    return _listed(client or connect())


def _listed(client: docker.DockerClient) -> list[Container]:
    """This module's containers from one listing call. The SDK's ``containers.list``
    inspects each one after listing, and raises NotFound when one is removed meanwhile
    (another worker's or test's bot ending): the listing already holds the labels."""
    rows = client.api.containers(all=True, filters={"label": LABEL})
    return [
        client.containers.prepare_model({**row, "Config": {"Labels": row.get("Labels") or {}}})
        for row in rows
    ]
