"""Python helpers shared by the drivers of scripts/bench-*.sh (on PYTHONPATH while they run)."""
import gzip
import json
import os
import platform
import sys
import time


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def loadavg():
    """The 1, 5 and 15 minute load averages, as /proc/loadavg gives them ("" where there is none)."""
    try:
        return " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        return ""


def cpu_name():
    """The CPU's model name from /proc/cpuinfo, else what the platform module says."""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def read_idx(path):
    """The array in a gzipped IDX file (MNIST's format): one row per item, flattened."""
    import numpy as np
    b = gzip.open(path).read()
    nd = b[3]
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(nd)]
    a = np.frombuffer(b, dtype=np.uint8, offset=4 + 4 * nd)
    return a.reshape(dims[0], -1) if nd > 1 else a


def header(rff_version, **params):
    """The head of a benchmark's JSON record: the date, params, the machine (CPU, cores, load average before), the
    thread and core-type environment, rff's version record (rff_version, JSON) and scikit-learn's stack with the BLAS
    NumPy loaded."""
    import numpy, scipy, sklearn, threadpoolctl
    numpy.ones((256, 256)) @ numpy.ones((256, 256))  # load OpenBLAS for threadpool_info
    return dict(date=time.strftime("%Y-%m-%dT%H:%M:%S%z"), **params,
                machine=dict(cpu=cpu_name(), nproc=os.cpu_count(), load_before=loadavg()),
                env={k: os.environ.get(k) for k in ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE"]},
                rff=json.loads(rff_version),
                sklearn=dict(sklearn=sklearn.__version__, numpy=numpy.__version__, scipy=scipy.__version__,
                             python=platform.python_version(), blas=threadpoolctl.threadpool_info()))
