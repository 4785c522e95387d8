// Package gguf reads and writes GGUF files, the model format of llama.cpp.
//
// A GGUF file is a header (magic "GGUF", version, counts), a list of typed
// metadata key/value pairs, a list of tensor descriptors, and a data section
// aligned to general.alignment (32 bytes unless the file says otherwise) that
// holds the tensor bytes. Versions 2 and 3 (64-bit counts) and the obsolete
// version 1 (32-bit counts, still found in old files) are read; files are
// written as version 3, except that WriteFile keeps the version of a v2 input
// so that re-emitting a parsed file reproduces it byte for byte.
//
// Reading: Open maps the file into memory (mmap on Unix, a file mapping on
// Windows, a plain read elsewhere) and parses only the metadata; tensor data
// is never copied, TensorData returns slices of the mapping that stay valid
// until Close. Parse does the same over a byte slice the caller owns (an
// embedded model, a fuzz input). Metadata is copied onto the heap once, so
// keys, strings and arrays outlive Close; each string array costs one
// allocation for its bytes plus one for its headers, which keeps 250k-entry
// vocabularies fast to load and free to query repeatedly.
//
// Input is treated as hostile: every count and length is checked against the
// bytes that remain before anything is allocated, so memory use is linear in
// the metadata actually present and never driven by a declared size; arrays
// nest at most MaxArrayDepth levels; tensors must have 1 to 4 dimensions, a
// known type, an aligned offset and data inside the file that overlaps no
// other tensor. A bad file yields a *FormatError naming the field and the
// byte offset, never a panic.
//
// Writing: Writer builds a new v3 file from metadata and tensor bytes with
// llama.cpp's layout (each tensor padded to the alignment); WriteFile
// re-emits a parsed file.
//
// Type numbers and block sizes follow ggml.h and ggml.c's type_traits table
// of the llama.cpp fork this project uses as its oracle (BeeLlama, which
// tracks upstream and adds TurboQuant KV-cache types 42-46).
package gguf
