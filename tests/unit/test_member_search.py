"""How the organiser's member search matches names (R-MEM-1)."""
from league.members import search_key


def test_r_mem_1_search_key_leaves_out_case_accents_and_apostrophes():
    assert search_key("  Zoë  MARTÍNEZ ") == "zoe martinez" == search_key("zoe martinez")
    assert search_key("Dave O'Brien") == "dave obrien" == search_key("Dave O’Brien")
