from setuptools import Extension, find_packages, setup

setup(
    name="visiontx",
    version="0.1.0",
    description="Vision transforms for PyTorch in the transforms-v2 style: datapoints, one draw per sample, per-type kernels.",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["visiontx", "visiontx.*"]),
    package_data={"visiontx": ["py.typed", "assets/coco_sample/*.json", "assets/coco_sample/images/*.jpg"]},
    license="BSD-3-Clause",
    python_requires=">=3.10",
    # OpenCV is the CPU fast path; visiontx still runs without it (the torch kernels), with a warning at import
    install_requires=["torch>=2.0", "pillow>=9.1", "numpy", "pycocotools>=2.0", "opencv-python-headless>=4.5"],
    extras_require={
        "test": ["pytest", "pytest-xdist", "hypothesis", "torchvision", "matplotlib", "scipy", "scikit-learn", "pyyaml"],
        "yaml": ["pyyaml"],  # T.save / T.load of .yaml pipelines
        "gallery": ["matplotlib"],
        "bench": ["torchvision", "albumentations==2.0.8", "kornia==0.7.4"],
    },
    # One optional compiled module (visiontx/_native.c and _native_color.c, _native_warp.c, _native_masks.c,
    # _native_blur.c, _native_random.c); without a C compiler the install goes on and the kernels it serves run
    # their other paths.
    ext_modules=[
        # no fused multiply-adds where CFLAGS allow them (-march=native, x86-64-v3): the kernels repeat torch's
        # float steps, each rounded on its own (the blur's fused steps are torch's own, written as intrinsics)
        Extension("visiontx._native",
                  ["visiontx/_native.c", "visiontx/_native_color.c", "visiontx/_native_warp.c",
                   "visiontx/_native_masks.c", "visiontx/_native_blur.c", "visiontx/_native_random.c"],
                  extra_compile_args=["-O3", "-ffp-contract=off"], optional=True)
    ],
    entry_points={"console_scripts": ["visiontx=visiontx.__main__:main"]},
)
