"""The build backend: setuptools' own, with a fallback so that an offline
``pip install --no-build-isolation ./clients/python`` works.

setuptools before 70.1 builds wheels only with the separate ``wheel`` package, which
a fresh venv lacks (Python's venv brings pip and, before 3.12, setuptools, but not
``wheel``), and offline pip cannot fetch it. Then this module builds the wheel
itself: the metadata still comes from setuptools reading pyproject.toml, and a
pure-Python wheel is a zip of the package, that metadata, WHEEL and RECORD.
With ``wheel`` (or setuptools >= 70.1) present, every hook is setuptools' own.
"""

import base64
import hashlib
import io
import os
import zipfile

_HOW = ("pip install 'setuptools>=61' first (offline on Debian: pip install --no-index "
        "--find-links /usr/share/python-wheels setuptools), or build with isolation while online")
try:
    import setuptools
    from setuptools import build_meta as _setuptools
except ImportError as error:  # Python 3.12+ venvs have no setuptools
    raise ImportError(f"building popgesture needs setuptools 61 or later, which is not installed: {_HOW}") from error
if int(setuptools.__version__.split(".")[0]) < 61:  # older ones ignore [project] and build "UNKNOWN"
    raise ImportError(f"building popgesture needs setuptools 61 or later (it reads pyproject.toml's [project]); "
                      f"this environment has {setuptools.__version__}: {_HOW}")

__all__ = ["build_wheel", "build_sdist", "get_requires_for_build_wheel", "get_requires_for_build_sdist",
           "prepare_metadata_for_build_wheel", "build_editable", "get_requires_for_build_editable",
           "prepare_metadata_for_build_editable"]


def _setuptools_builds_wheels():
    try:
        import setuptools.command.bdist_wheel  # noqa: F401  (setuptools >= 70.1)
        return True
    except ImportError:
        pass
    try:
        import wheel.bdist_wheel  # noqa: F401
        return True
    except ImportError:
        return False


build_sdist = _setuptools.build_sdist
get_requires_for_build_sdist = _setuptools.get_requires_for_build_sdist

if _setuptools_builds_wheels():
    build_wheel = _setuptools.build_wheel
    get_requires_for_build_wheel = _setuptools.get_requires_for_build_wheel
    prepare_metadata_for_build_wheel = _setuptools.prepare_metadata_for_build_wheel
    build_editable = getattr(_setuptools, "build_editable", None)
    get_requires_for_build_editable = getattr(_setuptools, "get_requires_for_build_editable", None)
    prepare_metadata_for_build_editable = getattr(_setuptools, "prepare_metadata_for_build_editable", None)
    if build_editable is None:
        del build_editable, get_requires_for_build_editable, prepare_metadata_for_build_editable
else:
    def get_requires_for_build_wheel(config_settings=None):
        return []  # nothing to fetch: the fallback below needs setuptools only

    def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
        return _build_pure_wheel(wheel_directory)


def _distribution():
    from setuptools.dist import Distribution
    distribution = Distribution()
    distribution.parse_config_files()  # pyproject.toml's [project] and [tool.setuptools]
    return distribution


def _record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _build_pure_wheel(wheel_directory):
    distribution = _distribution()
    name = distribution.get_name().replace("-", "_")
    version = distribution.get_version()
    files = {}
    for package in distribution.packages or []:
        folder = package.replace(".", "/")
        patterns = set((distribution.package_data or {}).get(package, [])) | set(
            (distribution.package_data or {}).get("", []))
        for entry in sorted(os.listdir(folder)):
            path = os.path.join(folder, entry)
            if os.path.isfile(path) and (entry.endswith(".py") or entry in patterns):
                with open(path, "rb") as file:
                    files[f"{folder}/{entry}"] = file.read()
    metadata = io.StringIO()
    distribution.metadata.write_pkg_file(metadata)
    dist_info = f"{name}-{version}.dist-info"
    files[f"{dist_info}/METADATA"] = metadata.getvalue().encode("utf-8")
    files[f"{dist_info}/WHEEL"] = (b"Wheel-Version: 1.0\nGenerator: popgesture_build\n"
                                   b"Root-Is-Purelib: true\nTag: py3-none-any\n")
    files[f"{dist_info}/top_level.txt"] = "".join(
        sorted({p.split(".")[0] + "\n" for p in distribution.packages or []})).encode()
    record = "".join(f"{path},{_record_hash(data)},{len(data)}\n" for path, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    wheel_name = f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name
