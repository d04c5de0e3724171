from setuptools import find_packages, setup

setup(
    name="visiontx",
    version="0.1.0",
    description="Vision transforms for PyTorch in the transforms-v2 style: datapoints, one draw per sample, per-type kernels.",
    long_description=open("README.md", encoding="utf-8").read(),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["visiontx", "visiontx.*"]),
    package_data={"visiontx": ["assets/coco_sample/*.json", "assets/coco_sample/images/*.jpg"]},
    python_requires=">=3.9",
    install_requires=["torch>=2.0", "pillow>=9.1", "numpy", "pycocotools>=2.0"],
    extras_require={
        "test": ["pytest", "pytest-xdist", "hypothesis", "torchvision", "matplotlib", "opencv-python-headless", "scipy"],
        "gallery": ["matplotlib"],
        "bench": ["torchvision", "opencv-python-headless"],
    },
    entry_points={"console_scripts": ["visiontx=visiontx.__main__:main"]},
)
