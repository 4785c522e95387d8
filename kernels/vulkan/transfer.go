//go:build vulkan && (amd64 || arm64) && (linux || darwin || windows)

package vulkan

import (
	"errors"
	"unsafe"
)

// stagingBytes is the size of a recorder's staging buffer for uploads and
// downloads outside a step (weights, test data).
const stagingBytes = 16 << 20

// staging returns the recorder's staging buffer, allocating it on first
// use.
func (r *Recorder) stagingBuffer() (*Buffer, error) {
	if r.staging == nil {
		b, err := r.d.NewBuffer(stagingBytes, HostMemory)
		if err != nil {
			return nil, err
		}
		r.staging = b
	}
	return r.staging, nil
}

// Upload copies data into dst (len(data) bytes from dst.Off), directly for
// host memory and through the staging buffer otherwise, one submit per
// stagingBytes. It must not be called while recording.
func (r *Recorder) Upload(dst Region, data []byte) error {
	if uint64(len(data)) > dst.Size {
		return errors.New("vulkan: upload larger than its destination")
	}
	if dst.B.mapped != nil {
		copy(dst.B.Bytes()[dst.Off:], data)
		return nil
	}
	st, err := r.stagingBuffer()
	if err != nil {
		return err
	}
	for off := 0; off < len(data); off += stagingBytes {
		n := copy(st.Bytes(), data[off:])
		if err := r.Begin(); err != nil {
			return err
		}
		r.Copy(dst.Sub(uint64(off), uint64(n+3)&^3), st.Region(0, uint64(n+3)&^3))
		if err := r.Submit(); err != nil {
			return err
		}
	}
	return nil
}

// Download copies len(dst) bytes from src into dst. It must not be called
// while recording.
func (r *Recorder) Download(dst []byte, src Region) error {
	if uint64(len(dst)) > src.Size {
		return errors.New("vulkan: download larger than its source")
	}
	if src.B.mapped != nil {
		copy(dst, src.B.Bytes()[src.Off:])
		return nil
	}
	st, err := r.stagingBuffer()
	if err != nil {
		return err
	}
	for off := 0; off < len(dst); off += stagingBytes {
		n := min(stagingBytes, len(dst)-off)
		if err := r.Begin(); err != nil {
			return err
		}
		r.Copy(st.Region(0, uint64(n+3)&^3), src.Sub(uint64(off), uint64(n+3)&^3))
		if err := r.Submit(); err != nil {
			return err
		}
		copy(dst[off:off+n], st.Bytes())
	}
	return nil
}

// UploadFloats is Upload of float32 values.
func (r *Recorder) UploadFloats(dst Region, v []float32) error {
	return r.Upload(dst, floatBytes(v))
}

// DownloadFloats is Download into float32 values.
func (r *Recorder) DownloadFloats(dst []float32, src Region) error {
	return r.Download(floatBytes(dst), src)
}

func floatBytes(v []float32) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 4*len(v))
}
