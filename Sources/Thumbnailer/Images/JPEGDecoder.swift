import CLibJPEG

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JPEG decoding through libjpeg-turbo (the only file that calls libjpeg).
///
/// The stream is first checked by `JPEGValidator`, so libjpeg's fatal-error path is not reached
/// for the supported subset. As a last line of defence the decode runs on its own thread whose
/// `error_exit` ends only that thread (`pthread_exit`): the caller then releases libjpeg's memory
/// and reports a warning instead of the process exiting. Messages never reach stderr.
enum JPEGDecoder {
    /// Decodes `bytes` to RGBA8 (sRGB). Large images are decoded at 1/2, 1/4 or 1/8 scale when
    /// that still gives at least `limits.targetSide` pixels on the longest side.
    /// `validate: false` skips the structural check (tests of the fatal-error path only).
    static func decode(
        _ bytes: [UInt8], limits: ImageDecodeLimits, validate: Bool = true
    )
        -> Result<DecodedImage, ImageDecodeFailure>
    {
        var info = JPEGValidator.Info(width: 0, height: 0, components: 3, progressive: false, scans: 1)
        if validate {
            switch JPEGValidator.validate(bytes, maxSide: limits.maxSide) {
            case .failure(let f): return .failure(f)
            case .success(let i): info = i
            }
        }
        var denom = 1
        var cost = 0
        if validate {
            while denom < 8 && max(info.width, info.height) / (denom * 2) >= limits.targetSide { denom *= 2 }
            let outW = (info.width + denom - 1) / denom, outH = (info.height + denom - 1) / denom
            cost = outW * outH * 4 + info.width * 4 * 16
            // Progressive streams keep every coefficient of the image in memory.
            if info.progressive {
                cost += ((info.width + 15) / 8) * ((info.height + 15) / 8) * 64 * 2 * info.components
            }
            guard cost <= limits.maxBytes else {
                return .failure(
                    ImageDecodeFailure(
                        code: .textureBudget,
                        message: "JPEG of \(info.width)×\(info.height) needs about \(cost) bytes to decode; "
                            + "\(limits.maxBytes) remain in the texture budget"))
            }
        }
        let job = Job(bytes: bytes, denom: denom, maxSide: limits.maxSide, maxBytes: limits.maxBytes)
        job.run()
        if let failure = job.failure { return .failure(failure) }
        guard job.width > 0, job.height > 0 else {
            return .failure(
                ImageDecodeFailure(code: .textureDecodeFailed, message: "JPEG: no image"))
        }
        return .success(DecodedImage(
            width: job.width, height: job.height, rgba: job.pixels, cost: max(cost, job.width * job.height * 4)))
    }

    /// One decode: libjpeg state in manually managed memory that outlives the decode thread.
    private final class Job: @unchecked Sendable {
        let bytes: [UInt8]
        let denom: Int
        let maxSide: Int
        let maxBytes: Int
        let cinfo = UnsafeMutablePointer<jpeg_decompress_struct>.allocate(capacity: 1)
        let err = UnsafeMutablePointer<jpeg_error_mgr>.allocate(capacity: 1)
        /// Message buffer filled by `error_exit` (JMSG_LENGTH_MAX is 200).
        let messageBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: 256)
        var created = false
        var fatal = false
        var failure: ImageDecodeFailure?
        var width = 0
        var height = 0
        var pixels: [UInt8] = []

        init(bytes: [UInt8], denom: Int, maxSide: Int, maxBytes: Int) {
            self.bytes = bytes
            self.denom = denom
            self.maxSide = maxSide
            self.maxBytes = maxBytes
            messageBuffer.initialize(repeating: 0, count: 256)
        }

        deinit {
            if created { jpeg_destroy_decompress(cinfo) }
            cinfo.deallocate()
            err.deallocate()
            messageBuffer.deallocate()
        }

        func run() {
            let context = Unmanaged.passUnretained(self).toOpaque()
            var thread = pthread_t()
            let started = pthread_create(
                &thread, nil,
                { raw in
                    guard let raw else { return nil }
                    Unmanaged<Job>.fromOpaque(raw).takeUnretainedValue().decodeOnThisThread()
                    return nil
                }, context)
            guard started == 0 else {
                failure = ImageDecodeFailure(
                    code: .textureDecodeFailed, message: "JPEG: no decode thread")
                return
            }
            pthread_join(thread, nil)
            if fatal {
                let text = String(cString: messageBuffer)
                failure = ImageDecodeFailure(
                    code: .textureDecodeFailed, message: "libjpeg: \(text)")
                pixels = []
            }
        }

        private func decodeOnThisThread() {
            cinfo.pointee.err = jpeg_std_error(err)
            err.pointee.error_exit = { common in
                // Fatal: record the message and end this thread; the caller cleans up.
                guard let common, let raw = common.pointee.client_data else { pthread_exit(nil) }
                let job = Unmanaged<Job>.fromOpaque(raw).takeUnretainedValue()
                job.fatal = true
                common.pointee.err.pointee.format_message(common, job.messageBuffer)
                pthread_exit(nil)
            }
            err.pointee.output_message = { _ in }
            cinfo.pointee.client_data = Unmanaged.passUnretained(self).toOpaque()
            jpeg_CreateDecompress(cinfo, JPEG_LIB_VERSION, MemoryLayout<jpeg_decompress_struct>.size)
            created = true
            bytes.withUnsafeBufferPointer { buf in
                jpeg_mem_src(cinfo, buf.baseAddress, UInt(buf.count))
                guard jpeg_read_header(cinfo, 1) == JPEG_HEADER_OK else {
                    failure = ImageDecodeFailure(
                        code: .textureDecodeFailed, message: "JPEG: no image")
                    return
                }
                let w = Int(cinfo.pointee.image_width), h = Int(cinfo.pointee.image_height)
                guard w > 0, h > 0, w <= maxSide, h <= maxSide,
                    cinfo.pointee.num_components == 1 || cinfo.pointee.num_components == 3
                else {
                    failure = ImageDecodeFailure(
                        code: .textureUnsupported, message: "JPEG: \(w)×\(h) is not supported")
                    return
                }
                cinfo.pointee.out_color_space = JCS_EXT_RGBA
                cinfo.pointee.scale_num = 1
                cinfo.pointee.scale_denom = UInt32(denom)
                cinfo.pointee.dct_method = JDCT_ISLOW
                guard jpeg_start_decompress(cinfo) != 0 else { return }
                let ow = Int(cinfo.pointee.output_width), oh = Int(cinfo.pointee.output_height)
                guard ow > 0, oh > 0, cinfo.pointee.output_components == 4, ow * oh * 4 <= maxBytes else {
                    jpeg_abort_decompress(cinfo)
                    failure = ImageDecodeFailure(
                        code: .textureBudget,
                        message: "JPEG output \(ow)×\(oh) exceeds the texture budget")
                    return
                }
                var out = [UInt8](repeating: 0, count: ow * oh * 4)
                out.withUnsafeMutableBufferPointer { dst in
                    while cinfo.pointee.output_scanline < cinfo.pointee.output_height {
                        let before = Int(cinfo.pointee.output_scanline)
                        var row: UnsafeMutablePointer<UInt8>? = dst.baseAddress! + before * ow * 4
                        let read = jpeg_read_scanlines(cinfo, &row, 1)
                        if read == 0 { break }
                    }
                }
                _ = jpeg_finish_decompress(cinfo)
                width = ow
                height = oh
                pixels = out
            }
        }
    }
}
