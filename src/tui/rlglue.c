/* stub */ typedef int ax_rlglue_stub;
