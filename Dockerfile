# Waggle in a container: a static, cgo-free binary on an empty image.
#
#   docker build -t waggle --build-arg VERSION=$(git describe --tags --always) .
#   docker run --rm -p 8080:8080 -v /path/to/models:/models:ro waggle \
#       serve --host 0.0.0.0 -m /models/model.gguf
#
# The image holds nothing but the binary: no shell, no libc. It runs as an
# unprivileged user; models are read from a volume (read-only is enough:
# weights are mmapped). The health check runs `waggle health` against the
# server's /health, which answers 200 once the model is loaded.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/waggle ./cmd/waggle

FROM scratch
COPY --from=build /out/waggle /waggle
USER 65532:65532
VOLUME ["/models"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
    CMD ["/waggle", "health", "--url", "http://127.0.0.1:8080/health"]
ENTRYPOINT ["/waggle"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080", "-m", "/models/model.gguf"]
