extension Thumbnailer {
    /// The eight orbit frames, drawn and encoded in groups of as many frames as there are
    /// workers: a group's images are drawn one after another into buffers that every group
    /// reuses (first those of `spare`, images already encoded, that have the frames' size), then
    /// encoded in parallel. At most a group's images are held at once, and their memory is
    /// allocated (and faulted in by the kernel) once rather than for every frame. The bytes are
    /// those of drawing and encoding each frame on its own.
    /// - Throws: `ThumbnailerError` `THUMB_WEBP_FAILED` when libwebp refuses a frame.
    static func orbitViews(
        _ context: RenderContext, options: ThumbnailOptions, spare: [[UInt8]] = []
    ) throws -> [ThumbnailView] {
        let size = options.sizes.orbit.clamped
        let cameras = context.planner.orbitCameras(width: size.width, height: size.height)
        let group = max(1, min(Parallel.workers, cameras.count))
        var buffers = Array(spare.filter { $0.count == size.width * size.height * 4 }.prefix(group))
        buffers += [[UInt8]](repeating: [], count: group - buffers.count)
        var views: [ThumbnailView] = []
        var first = 0
        while first < cameras.count {
            let count = min(group, cameras.count - first)
            var drawn: [RenderedFrame] = []
            for j in 0..<count {
                let k = first + j, camera = cameras[k]
                var storage: [UInt8] = []
                swap(&storage, &buffers[j])
                let out = context.renderScene(
                    camera: camera, width: size.width, height: size.height, cutaway: true, reusing: consume storage)
                drawn.append(
                    RenderedFrame(
                        kind: .orbit, path: "thumbs/orbit-0\(k).webp", width: size.width, height: size.height,
                        rgba: out.rgba, camera: camera))
            }
            let encoded = try encodeNow(consume drawn, options: options)
            for (j, image) in encoded.images.enumerated() { buffers[j] = image }
            views += encoded.views
            first += count
        }
        return views
    }

    /// Encodes `frames` in parallel (a frame with `sameAs`, an index into `frames`, takes that
    /// frame's bytes) and returns them as views, with their images moved out: once each, in the
    /// order of the frames that own them, for the next frames to draw into.
    /// - Throws: `ThumbnailerError` `THUMB_WEBP_FAILED` when libwebp refuses a frame.
    static func encodeNow(
        _ frames: consuming [RenderedFrame], options: ThumbnailOptions
    ) throws -> (views: [ThumbnailView], images: [[UInt8]]) {
        let encoded = encode(frames.map { $0.sameAs == nil ? $0 : nil }, options: options)
        var views: [ThumbnailView] = []
        for (i, f) in frames.enumerated() {
            guard let bytes = encoded[f.sameAs ?? i] else {
                throw ThumbnailerError(code: .webpFailed, message: "libwebp could not encode \(f.path)")
            }
            views.append(
                ThumbnailView(
                    kind: f.kind, path: f.path, width: f.width, height: f.height, webp: bytes, camera: f.camera,
                    room: f.room))
        }
        // Moved out only after every frame is encoded, so each image is left with one reference.
        var images: [[UInt8]] = []
        for i in frames.indices {
            var image: [UInt8] = []
            swap(&image, &frames[i].rgba)
            if frames[i].sameAs == nil { images.append(image) }
        }
        return (views, images)
    }

    /// The WebP bytes of each frame given (nil where no frame is given or libwebp refused it),
    /// encoded in parallel: each encoding is single-threaded and deterministic.
    static func encode(_ frames: [RenderedFrame?], options: ThumbnailOptions) -> [[UInt8]?] {
        final class Slot: @unchecked Sendable { var bytes: [UInt8]? }
        let slots = frames.map { _ in Slot() }
        let quality = options.webpQuality, method = options.webpMethod, segments = options.webpSegments
        frames.withUnsafeBufferPointer { fs in
            Parallel.forEach(fs.count) { i in
                guard let f = fs[i] else { return }
                slots[i].bytes = WebPCodec.encode(
                    rgba: f.rgba, width: f.width, height: f.height, quality: quality, method: method,
                    segments: segments)
            }
        }
        return slots.map(\.bytes)
    }
}
