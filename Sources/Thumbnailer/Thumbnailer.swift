// The Thumbnailer module: filled by later work. It deliberately exposes no API yet, so nothing can
// depend on behaviour that does not exist.
