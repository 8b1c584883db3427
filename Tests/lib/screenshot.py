"""Screenshots of an X display without ImageMagick: `xwd` (x11-apps) dumps the root
window, and this reads its TrueColor dump and writes PNG with zlib alone. A wlroots
compositor's outputs come from `grim` (its PPM output) instead.

    image = grab(":91")              # an Image: width, height, pixel(x, y) -> (r, g, b)
    image = grab_wayland(env)        # env: WAYLAND_DISPLAY and XDG_RUNTIME_DIR of the compositor
    image = read_png(data)           # a PNG file's bytes, such as GNOME Shell's screenshots
    image.save_png("shot.png")
"""

import struct
import subprocess
import zlib


class Image:
    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb  # rgb: bytes, 3 a pixel, rows top first

    def pixel(self, x, y):
        offset = 3 * (y * self.width + x)
        return tuple(self.rgb[offset:offset + 3])

    def row(self, y):
        return [self.pixel(x, y) for x in range(self.width)]

    def crop(self, x, y, width, height):
        rows = [self.rgb[3 * ((y + r) * self.width + x):3 * ((y + r) * self.width + x + width)] for r in range(height)]
        return Image(width, height, b"".join(rows))

    def save_png(self, path):
        stride = 3 * self.width
        raw = bytearray()
        for y in range(self.height):  # filter "Sub": flat colours compress to almost nothing
            line = self.rgb[y * stride:(y + 1) * stride]
            raw.append(1)
            raw += line[:3]
            raw += bytes((line[i] - line[i - 3]) & 0xFF for i in range(3, stride))

        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        with open(path, "wb") as file:
            file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
                       + chunk(b"IEND", b""))


def read_xwd(data):
    """An XWD file (X11 window dump, version 7) of a 24- or 32-bit TrueColor visual."""
    fields = struct.unpack(">25I", data[:100])
    (header_size, version, pixmap_format, depth, width, height, _xoffset, byte_order, _unit, _bit_order, _pad,
     bits_per_pixel, bytes_per_line, visual_class, red_mask, green_mask, blue_mask, _bits_rgb, _entries, ncolors,
     *_rest) = fields
    if version != 7 or pixmap_format != 2 or visual_class not in (4, 5) or bits_per_pixel not in (24, 32):
        raise ValueError(f"unsupported XWD: version {version}, format {pixmap_format}, class {visual_class}, "
                         f"{bits_per_pixel} bits a pixel")
    offset = header_size + 12 * ncolors
    size = bits_per_pixel // 8
    shifts = [(mask, (mask & -mask).bit_length() - 1) for mask in (red_mask, green_mask, blue_mask)]
    order = "big" if byte_order == 1 else "little"
    rgb = bytearray(3 * width * height)
    out = 0
    for y in range(height):
        line = data[offset + y * bytes_per_line:offset + y * bytes_per_line + width * size]
        for x in range(0, width * size, size):
            value = int.from_bytes(line[x:x + size], order)
            for mask, shift in shifts:
                rgb[out] = (value & mask) >> shift
                out += 1
    return Image(width, height, bytes(rgb))


def grab(display, timeout=10):
    """The whole screen of `display` now."""
    dump = subprocess.run(["xwd", "-root", "-silent", "-display", display], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout, check=True).stdout
    return read_xwd(dump)


def read_ppm(data):
    """A binary PPM (P6) with 8-bit samples, as grim writes it."""
    fields = []
    position = 0
    while len(fields) < 4:
        while data[position:position + 1].isspace():
            position += 1
        if data[position:position + 1] == b"#":
            position = data.index(b"\n", position) + 1
            continue
        end = position
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[position:end])
        position = end
    magic, width, height, maximum = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    if magic != b"P6" or maximum != 255:
        raise ValueError(f"unsupported PPM: {magic!r} with maximum {maximum}")
    start = position + 1
    return Image(width, height, bytes(data[start:start + 3 * width * height]))


def grab_wayland(env, timeout=10):
    """Every output of the wlroots compositor that `env` names, now (grim's screencopy)."""
    dump = subprocess.run(["grim", "-t", "ppm", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, check=True, env=env).stdout
    return read_ppm(dump)


def read_png(data):
    """A PNG of 8-bit RGB or RGBA, not interlaced (what GNOME Shell's screenshots are), as
    an Image: alpha dropped (a screenshot is opaque)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position, idat, header = 8, bytearray(), None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        position += 12 + length
    if header is None:
        raise ValueError("a PNG without IHDR")
    width, height, depth, colour, _compression, _filter, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, interlace {interlace}")
    channels = 3 if colour == 2 else 4
    stride = channels * width
    raw = zlib.decompress(bytes(idat))
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, corner = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                estimate = left + up - corner
                pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line) if channels == 3 else bytes(b for i, b in enumerate(line) if i % 4 != 3))
        previous = line
    return Image(width, height, b"".join(rows))
