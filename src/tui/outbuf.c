/* stub */ typedef int ax_outbuf_stub;
