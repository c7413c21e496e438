#!/usr/bin/env python3
"""Every orientation against Pillow: `snapstation process` on a photo with each EXIF orientation, with each
configured turn (--rotation/--hflip/--vflip, as camera.rotation, camera.hflip and camera.vflip) and with
both at once, scored against Pillow's exif_transpose of a float-scaled copy (Tests/Support/photo_reference.py).
Each must reach the PSNR the upright photo reaches on the same path, within 0.3 dB; its thumbnail too; and
neither may carry any metadata.

Two photos, 2026×1518 so that the sizes come out odd: noise (as the benchmark's) and sharp coloured
shapes, where chroma half a sample off shows. Three paths: the default (a half-size decode of 1013×759,
nothing to shrink), exact size (--strict-max: a 5/8 decode shrunk by AreaScale to 1024×767) and BGRX (a
filter at intensity 0).

    python3 Tests/Imaging/check_orientation.py [--binary .build/debug/snapstation]

Needs the binary (Tests/run's swift test builds it) and Pillow with NumPy (from PyPI into
.build-bench/venv when this Python lacks them).
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "Support"))
from photo_reference import AS_OPTIONS, Reference, turned_size, with_orientation  # noqa: E402
from pychecks import ROOT, check, finish, in_venv  # noqa: E402

SIZE = (2026, 1518)
PATHS = {
    "default": ["--max", "1024"],
    "exact size": ["--max", "1024", "--strict-max"],
    "BGRX": ["--max", "1024", "--filter", "sepia", "--intensity", "0"],
}
# How much below the upright photo's PSNR a turned one may land: interpolated chroma costs up to 0.26 dB.
TOLERANCE = 0.3
# The thumbnail's, which checks that it turned the same way (a wrong turn loses more than 10 dB): its
# shrink beyond 2:1 differs by path and is not symmetric. libyuv's box filter scores up to 1.1 dB under
# the upright thumbnail on the coloured shapes when the photo turned along its long side, and the BGRX
# path's (a half-size decode with an odd side reversed) 2.2 dB under the YUV path's on noise.
THUMBNAIL_TOLERANCE = 3


def have_pillow():
    try:
        import numpy  # noqa: F401
        import PIL  # noqa: F401
        return True
    except ImportError:
        return False


def photos(folder):
    """The two source photos, as JPEG files."""
    from PIL import Image, ImageDraw

    noise = [Image.effect_noise(SIZE, 45) for _ in range(3)]
    gradient = Image.linear_gradient("L").resize(SIZE)
    Image.merge("RGB", [Image.blend(n, gradient, 0.35) for n in noise]).save(os.path.join(folder, "noise.jpg"),
                                                                              quality=92)
    shapes = Image.new("RGB", SIZE, (128, 128, 128))
    draw, rng = ImageDraw.Draw(shapes), random.Random(3)
    for _ in range(400):
        x, y = rng.randrange(SIZE[0]), rng.randrange(SIZE[1])
        draw.rectangle([x, y, x + rng.randrange(4, 120), y + rng.randrange(4, 120)],
                       fill=tuple(rng.randrange(256) for _ in range(3)))
    shapes.save(os.path.join(folder, "shapes.jpg"), quality=95)
    return [os.path.join(folder, name) for name in ("noise.jpg", "shapes.jpg")]


def composed(first, then):
    """The one EXIF orientation that does EXIF `first` and then the turn EXIF `then` names, found by
    turning a small image with Pillow's own table (exif_transpose's)."""
    import numpy
    from PIL import Image, ImageOps

    def turn(pixels, value):
        image = Image.fromarray(pixels)  # a new image: Pillow caches what it read of the last one's EXIF
        exif = Image.Exif()
        exif[0x0112] = value
        image.info["exif"] = exif.tobytes()
        return numpy.asarray(ImageOps.exif_transpose(image))

    start = numpy.arange(6, dtype=numpy.uint8).reshape(2, 3)
    goal = turn(turn(start, first), then)
    return next(value for value in range(1, 9) if numpy.array_equal(turn(start, value), goal))


def markers(path):
    """The JPEG marker bytes before the image data."""
    with open(path, "rb") as f:
        data = f.read()
    found, index = [], 2
    while index + 4 <= len(data) and data[index] == 0xFF:
        found.append(data[index + 1])
        if data[index + 1] == 0xDA:
            break
        index += 2 + (data[index + 2] << 8 | data[index + 3])
    return found, data


def main():
    in_venv("venv", ["pillow", "numpy"], have_pillow)
    from PIL import Image
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build/debug/snapstation"))
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="snapturns-")

    def run(source, options, name):
        photo, thumbnail = os.path.join(folder, name + ".jpg"), os.path.join(folder, name + "-thumb.jpg")
        subprocess.run([args.binary, "process", source, "-o", photo, "--thumbnail", thumbnail, *options],
                       check=True, capture_output=True)
        return photo, thumbnail

    for source in photos(folder):
        with open(source, "rb") as f:
            jpeg = f.read()
        reference = Reference(source)
        photo_name = os.path.basename(source)[:-4]
        for path, options in PATHS.items():
            upright_photo, upright_thumbnail = run(source, options, "upright")
            floor = (reference.psnr(upright_photo, 1), reference.psnr(upright_thumbnail, 1))
            # (title, the file's EXIF orientation, the configured turn, the orientation that must come out)
            cases = [(f"EXIF {value}", value, [], value) for value in range(2, 9)]
            if path != "BGRX":
                cases += [(f"configured {' '.join(AS_OPTIONS[value])}", 1, AS_OPTIONS[value], value)
                          for value in range(2, 9)]
                cases += [(f"EXIF {first} then {' '.join(AS_OPTIONS[then])}", first, AS_OPTIONS[then],
                           composed(first, then)) for first, then in ((6, 6), (5, 2), (8, 7), (3, 4))]
            for title, value, configured, expected in cases:
                with check(f"{photo_name}, {path}: {title}: the upright photo's PSNR ({floor[0]:.2f} dB), "
                           f"its thumbnail's too, no metadata"):
                    tagged = os.path.join(folder, "tagged.jpg")
                    with open(tagged, "wb") as f:
                        f.write(with_orientation(jpeg, value) if value != 1 else jpeg)
                    photo, thumbnail = run(tagged, [*options, *configured], "turned")
                    with Image.open(photo) as im, Image.open(upright_photo) as up:
                        assert im.size == turned_size(up.size, expected), f"{im.size} from {up.size}"
                    scores = (reference.psnr(photo, expected), reference.psnr(thumbnail, expected))
                    assert scores[0] >= floor[0] - TOLERANCE, f"photo {scores[0]:.2f} dB"
                    assert scores[1] >= floor[1] - THUMBNAIL_TOLERANCE, f"thumbnail {scores[1]:.2f} dB (upright {floor[1]:.2f})"
                    for output in (photo, thumbnail):
                        found, data = markers(output)
                        assert not any(0xE1 <= m <= 0xEF or m == 0xFE for m in found), f"markers {found}"
                        assert b"Exif" not in data, "an EXIF block left in the output"
    finish("orientation check: ")


if __name__ == "__main__":
    main()
