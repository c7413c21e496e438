/// A one-byte-per-pixel mask (0 = out, 255 = in) with the morphology the sticker needs.
struct Mask {
    let width: Int
    let height: Int
    var values: [UInt8]

    init(width: Int, height: Int, values: [UInt8]) {
        self.width = width
        self.height = height
        self.values = values
    }

    /// Grows (`dilate`) or shrinks (`erode`) the mask by a square of `radius`, separably (rows, then columns).
    func morphed(radius: Int, dilate: Bool) -> Mask {
        guard radius > 0 else { return self }
        func pass(_ input: [UInt8], along rows: Bool) -> [UInt8] {
            var output = input
            let (outer, inner) = rows ? (height, width) : (width, height)
            for o in 0..<outer {
                for i in 0..<inner {
                    var result: UInt8 = dilate ? 0 : 255
                    for k in max(0, i - radius)...min(inner - 1, i + radius) {
                        let value = input[rows ? o * width + k : k * width + o]
                        result = dilate ? max(result, value) : min(result, value)
                    }
                    output[rows ? o * width + i : i * width + o] = result
                }
            }
            return output
        }
        return Mask(width: width, height: height, values: pass(pass(values, along: true), along: false))
    }

    /// Only the largest 4-connected region of set pixels, with its holes filled.
    func largestRegion() -> (mask: Mask, area: Int) {
        var label = [Int32](repeating: 0, count: values.count)
        var best: (label: Int32, area: Int) = (0, 0)
        var next: Int32 = 0
        var stack: [Int] = []
        for start in values.indices where values[start] > 127 && label[start] == 0 {
            next += 1
            label[start] = next
            stack.append(start)
            var area = 0
            while let index = stack.popLast() {
                area += 1
                let x = index % width
                for neighbour in [x > 0 ? index - 1 : -1, x < width - 1 ? index + 1 : -1, index - width, index + width]
                where neighbour >= 0 && neighbour < values.count && values[neighbour] > 127 && label[neighbour] == 0 {
                    label[neighbour] = next
                    stack.append(neighbour)
                }
            }
            if area > best.area { best = (next, area) }
        }
        // Holes: background not reachable from the border.
        var outside = [Bool](repeating: false, count: values.count)
        for index in values.indices where label[index] != best.label {
            let x = index % width
            let y = index / width
            if x == 0 || y == 0 || x == width - 1 || y == height - 1 {
                outside[index] = true
                stack.append(index)
            }
        }
        while let index = stack.popLast() {
            let x = index % width
            for neighbour in [x > 0 ? index - 1 : -1, x < width - 1 ? index + 1 : -1, index - width, index + width]
            where neighbour >= 0 && neighbour < values.count && !outside[neighbour] && label[neighbour] != best.label {
                outside[neighbour] = true
                stack.append(neighbour)
            }
        }
        let filled = outside.map { $0 ? UInt8(0) : UInt8(255) }
        return (Mask(width: width, height: height, values: best.area > 0 ? filled : values.map { _ in 0 }), best.area)
    }

    /// The mask as a grey image, to be scaled with libyuv.
    var image: PixelImage {
        var pixels = [UInt8](repeating: 255, count: values.count * 4)
        for (index, value) in values.enumerated() {
            pixels[index * 4] = value
            pixels[index * 4 + 1] = value
            pixels[index * 4 + 2] = value
        }
        return PixelImage(width: width, height: height, pixels: pixels)
    }
}
