# `pip install --no-build-isolation .` builds the Python package `hysim` (python/hysim) and its
# compiled core hysim._core with this project's CMake (Debian 12 has no scikit-build;
# setuptools, which it has, drives CMake offline) and installs them, with the type stubs, for the
# interpreter that runs pip (docs/python.md). The build folder
# is pip's own; the C++ build options are CMake's (HYSIM_CMAKE_ARGS adds more).
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = pathlib.Path(__file__).parent.resolve()


def version():
    text = (SOURCE / "CMakeLists.txt").read_text()
    return re.search(r"project\(hysim VERSION ([0-9.]+)", text).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = pathlib.Path(self.build_temp).resolve() / "cmake"
        configure = ["cmake", "-S", str(SOURCE), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                     f"-DPython_EXECUTABLE={sys.executable}", "-DHYSIM_WITH_PYTHON=ON"]
        configure += shlex.split(os.environ.get("HYSIM_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(build), "--target", "hysim_python", "-j", jobs], check=True)
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        target.parent.mkdir(parents=True, exist_ok=True)
        built = sorted((build / "python" / "hysim").glob("_core*.so"))
        if not built:
            raise RuntimeError(f"the CMake build left no module in {build / 'python' / 'hysim'}")
        shutil.copy2(built[0], target)


setup(name="hysim", version=version(), description="simulation of hybrid dynamic systems",
      packages=["hysim"], package_dir={"": "python"}, package_data={"hysim": ["*.pyi", "py.typed"]},
      ext_modules=[Extension("hysim._core", sources=[])], cmdclass={"build_ext": CMakeBuild}, zip_safe=False)
