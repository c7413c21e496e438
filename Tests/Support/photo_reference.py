"""What the imaging benchmark (Tests/Benchmarks/imaging.py) and the orientation check
(Tests/Imaging/check_orientation.py) share: a JPEG given an EXIF orientation without touching its image
data, and the float reference a processed photo is scored against (PSNR over RGB).

The reference is Pillow's own reading of the orientation: the source decoded at full size, area-averaged
to the upright output's size in floating point, then turned by `ImageOps.exif_transpose`. Area averaging
commutes with an exact turn, so this is what a perfect pipeline would make of the tagged file."""
import struct

# Each EXIF orientation as `snapstation process`'s options name the same turn, the way the config's
# camera.rotation, camera.hflip and camera.vflip do (the rotation first, then the flips).
AS_OPTIONS = {
    1: [], 2: ["--hflip"], 3: ["--rotation", "180"], 4: ["--vflip"], 5: ["--rotation", "90", "--hflip"],
    6: ["--rotation", "90"], 7: ["--rotation", "90", "--vflip"], 8: ["--rotation", "270"],
}


def exif_with_orientation(value):
    """An EXIF block ("Exif\\0\\0" and a TIFF header) holding only orientation `value`, as Pillow writes it."""
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def with_orientation(jpeg, value):
    """`jpeg` (bytes) with an APP1 EXIF segment holding only orientation `value`, inserted after SOI: the
    same compressed image, so decoding it costs exactly what decoding the untagged file does."""
    body = exif_with_orientation(value)
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body + jpeg[2:]


def turned_size(size, value):
    """The size a `size` image has after orientation `value` turns it upright."""
    return (size[1], size[0]) if value >= 5 else size


class Reference:
    """The float reference for one source photo, at every size and orientation asked for."""

    def __init__(self, path):
        from PIL import Image

        with Image.open(path) as im:
            self.channels = [band.convert("F") for band in im.convert("RGB").split()]
        self.cache = {}

    def pixels(self, size, value):
        """The reference for an output of `size` (as turned) from the source with orientation `value`, as a
        height × width × 3 float array."""
        import numpy
        from PIL import Image, ImageOps

        key = (size, value)
        if key not in self.cache:
            upright = turned_size(size, value)
            planes = []
            for channel in self.channels:
                scaled = channel.resize(upright, Image.BOX)
                scaled.info["exif"] = exif_with_orientation(value)
                planes.append(numpy.asarray(ImageOps.exif_transpose(scaled), dtype=numpy.float64))
            self.cache[key] = numpy.stack(planes, axis=-1)
        return self.cache[key]

    def psnr(self, output, value):
        """PSNR in dB over RGB of the JPEG at path `output` against the reference for orientation `value`."""
        import numpy
        from PIL import Image

        with Image.open(output) as out:
            got = numpy.asarray(out.convert("RGB"), dtype=numpy.float64)
            size = out.size
        error = numpy.mean((got - self.pixels(size, value)) ** 2)
        return 10 * numpy.log10(255 ** 2 / error) if error > 0 else float("inf")
