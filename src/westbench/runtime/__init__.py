"""How a job runs on its machine: devices and threads, signals, the console, restarts and lean imports.

One module per policy: :mod:`~westbench.runtime.devices` (which platforms are GPUs, which GPU each worker
uses), :mod:`~westbench.runtime.resources` (what each job asks the scheduler for: threads, GPUs, WE workers),
:mod:`~westbench.runtime.interrupt` (a job stops within seconds on SIGINT/SIGTERM, leaving resumable state),
:mod:`~westbench.runtime.console` (what reaches the console), :mod:`~westbench.runtime.resume` (the one restart
rule of a run folder) and :mod:`~westbench.runtime.without_torch` (deeptime and POT imported without torch).
The runtime layer imports only the base (config, errors): every stage may use it.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "GPU_PLATFORMS": "westbench.runtime.devices",
    "DeviceError": "westbench.runtime.devices",
    "is_gpu_platform": "westbench.runtime.devices",
    "on_gpu": "westbench.runtime.devices",
    "visible_gpus": "westbench.runtime.devices",
    "worker_device": "westbench.runtime.devices",
    "job_threads": "westbench.runtime.resources",
    "job_gpus": "westbench.runtime.resources",
    "we_job_workers": "westbench.runtime.resources",
    "engine_threads": "westbench.runtime.resources",
    "Interrupted": "westbench.runtime.interrupt",
    "stop_on_signals": "westbench.runtime.interrupt",
    "declare_chatty": "westbench.runtime.console",
    "quiet_console": "westbench.runtime.console",
    "run_identity": "westbench.runtime.resume",
    "reset_if_settings_changed": "westbench.runtime.resume",
    "import_without_torch": "westbench.runtime.without_torch",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
