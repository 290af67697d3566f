/* stub */ typedef int ax_panes_stub;
