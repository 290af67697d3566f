/* stub */ typedef int ax_dump_stub;
