"""Test instrumentation: every interpreter started with this folder on PYTHONPATH and ZMQ_DEBUG_LOG_DIR set (a
test's ZeroMQ master, its node, the node's workers) logs WESTPA's work-manager records, DEBUG and up, to
``<ZMQ_DEBUG_LOG_DIR>/wm.<pid>.log``, so a ZeroMQ run that stalls in a test shows who last said what."""

import logging
import os

_folder = os.environ.get("ZMQ_DEBUG_LOG_DIR")
if _folder:
    _handler = logging.FileHandler(os.path.join(_folder, f"wm.{os.getpid()}.log"))  # forked workers keep their parent's
    _handler.setFormatter(
        logging.Formatter("%(asctime)s %(process)d %(threadName)s %(name)s %(levelname)s %(message)s")
    )
    _logger = logging.getLogger("westpa.work_managers")
    _logger.setLevel(logging.DEBUG)
    _logger.addHandler(_handler)
