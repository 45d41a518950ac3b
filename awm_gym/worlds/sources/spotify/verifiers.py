"""Code-mode verifiers of the spotify world, one per task (gen_verifier.pure_code.jsonl).

`verifier_<i>` is task i's verifier. The assembler stores each function's source text with the
name rewritten to `verify_task_completion`, AWM's entry-point name. Each function imports only
sqlite3, json and re, reads both databases, and returns {"result": "complete"} only when the
task is certainly done, else {"result": "others"}. VERIFIER_META gives the rest of AWM's raw
response (reasoning, verification_strategy, key_checks) in task order.
"""


def verifier_0(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    row = conn.execute("SELECT al.title, al.release_date FROM albums al JOIN artists ar ON ar.id = al.artist_id WHERE ar.name = 'Luna Vale' AND al.album_type = 'album' ORDER BY al.release_date DESC, al.id DESC LIMIT 1").fetchone()
    conn.close()
    if row is None:
        return {"result": "others"}
    title, release_date = row
    if not re.search(re.escape(title), final_answer, re.IGNORECASE):
        return {"result": "others"}
    if not re.search(r"(?<!\d)" + re.escape(release_date[:4]) + r"(?!\d)", final_answer):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_1(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    rows = init.execute("SELECT t.id, a.name FROM tracks t JOIN track_artists ta ON ta.track_id = t.id AND ta.role = 'primary' JOIN artists a ON a.id = ta.artist_id WHERE t.title = 'Paper Lanterns'").fetchall()
    targets = [track_id for track_id, artist in rows if artist == "Hollow Pines"]
    distractors = [track_id for track_id, artist in rows if artist != "Hollow Pines"]
    init_likes = {r[0] for r in init.execute("SELECT track_id FROM liked_tracks WHERE user_id = 1").fetchall()}
    final_likes = {r[0] for r in final.execute("SELECT track_id FROM liked_tracks WHERE user_id = 1").fetchall()}
    init.close()
    final.close()
    if len(targets) != 1 or targets[0] in init_likes:
        return {"result": "others"}
    if targets[0] not in final_likes:
        return {"result": "others"}
    if any(track_id in final_likes and track_id not in init_likes for track_id in distractors):
        return {"result": "others"}
    if not init_likes.issubset(final_likes):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_2(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    conn = sqlite3.connect(initial_db_path)
    row = conn.execute("SELECT a.name, a.monthly_listeners FROM followed_artists f JOIN artists a ON a.id = f.artist_id WHERE f.user_id = 1 ORDER BY a.monthly_listeners DESC LIMIT 1").fetchone()
    conn.close()
    if row is None:
        return {"result": "others"}
    name, listeners = row
    if not re.search(re.escape(name), final_answer, re.IGNORECASE):
        return {"result": "others"}
    compact = re.sub(r"(?<=\d)[,\s\u00a0\u202f](?=\d{3}(?!\d))", "", final_answer)
    if re.search(r"(?<![\d.])" + str(listeners) + r"(?![\d])", compact):
        return {"result": "complete"}
    millions = ("%.2f" % (listeners / 1000000)).rstrip("0").rstrip(".")
    if float(millions) * 1000000 == listeners and re.search(r"(?<![\d.])" + re.escape(millions) + r"\s*(m\b|mil|million)", final_answer, re.IGNORECASE):
        return {"result": "complete"}
    return {"result": "others"}


def verifier_3(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    old_row = init.execute("SELECT id FROM playlists WHERE user_id = 1 AND name = 'Old Gym Mix'").fetchone()
    trip_row = init.execute("SELECT id FROM playlists WHERE user_id = 1 AND name = 'Road Trip 2023'").fetchone()
    if old_row is None or trip_row is None:
        return {"result": "others"}
    old_id, trip_id = old_row[0], trip_row[0]
    init_ids = {r[0] for r in init.execute("SELECT id FROM playlists").fetchall()}
    final_ids = {r[0] for r in final.execute("SELECT id FROM playlists").fetchall()}
    renamed = final.execute("SELECT name, is_public FROM playlists WHERE id = ?", (trip_id,)).fetchone()
    init_tracks = [r[0] for r in init.execute("SELECT track_id FROM playlist_tracks WHERE playlist_id = ? ORDER BY position, id", (trip_id,)).fetchall()]
    final_tracks = [r[0] for r in final.execute("SELECT track_id FROM playlist_tracks WHERE playlist_id = ? ORDER BY position, id", (trip_id,)).fetchall()]
    init.close()
    final.close()
    if old_id in final_ids:
        return {"result": "others"}
    if not (init_ids - {old_id}).issubset(final_ids):
        return {"result": "others"}
    if renamed is None or renamed[0].strip() != "Road Trip Classics" or not renamed[1]:
        return {"result": "others"}
    if init_tracks != final_tracks:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_4(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    columns = "audio_quality, crossfade_seconds, explicit_content_allowed, autoplay, normalize_volume, private_session, language"
    init_settings = init.execute("SELECT " + columns + " FROM user_settings WHERE user_id = 1").fetchone()
    final_settings = final.execute("SELECT " + columns + " FROM user_settings WHERE user_id = 1").fetchone()
    device = init.execute("SELECT id FROM devices WHERE user_id = 1 AND name = 'Living Room Speaker'").fetchone()
    state = final.execute("SELECT device_id FROM playback_state WHERE user_id = 1").fetchone()
    active = final.execute("SELECT id FROM devices WHERE user_id = 1 AND is_active = 1").fetchall()
    init.close()
    final.close()
    if init_settings is None or final_settings is None or device is None or state is None:
        return {"result": "others"}
    if final_settings[0] != "very_high" or final_settings[1] != 6:
        return {"result": "others"}
    if tuple(final_settings[2:]) != tuple(init_settings[2:]):
        return {"result": "others"}
    if state[0] != device[0]:
        return {"result": "others"}
    if [r[0] for r in active] != [device[0]]:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_5(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    podcast = init.execute("SELECT id FROM podcasts WHERE title = 'Deep Field Dispatch'").fetchone()
    if podcast is None:
        return {"result": "others"}
    latest = init.execute("SELECT id FROM episodes WHERE podcast_id = ? ORDER BY release_date DESC, id DESC LIMIT 1", (podcast[0],)).fetchone()
    init_follows = {r[0] for r in init.execute("SELECT podcast_id FROM followed_podcasts WHERE user_id = 1").fetchall()}
    final_follows = {r[0] for r in final.execute("SELECT podcast_id FROM followed_podcasts WHERE user_id = 1").fetchall()}
    init_saved = {r[0] for r in init.execute("SELECT episode_id FROM saved_episodes WHERE user_id = 1").fetchall()}
    final_saved = {r[0] for r in final.execute("SELECT episode_id FROM saved_episodes WHERE user_id = 1").fetchall()}
    init.close()
    final.close()
    if latest is None or podcast[0] in init_follows or latest[0] in init_saved:
        return {"result": "others"}
    if podcast[0] not in final_follows or not init_follows.issubset(final_follows):
        return {"result": "others"}
    if final_saved - init_saved != {latest[0]} or not init_saved.issubset(final_saved):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_6(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    if not final_answer:
        return {"result": "others"}
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    top = init.execute("SELECT h.track_id, t.title, COUNT(*) AS plays FROM listening_history h JOIN tracks t ON t.id = h.track_id WHERE h.user_id = 1 GROUP BY h.track_id ORDER BY plays DESC, h.track_id LIMIT 2").fetchall()
    init_queue = {r[0]: r[1:] for r in init.execute("SELECT id, track_id, episode_id FROM queue_items WHERE user_id = 1").fetchall()}
    final_queue = final.execute("SELECT id, track_id, episode_id, position FROM queue_items WHERE user_id = 1 ORDER BY position, id").fetchall()
    init.close()
    final.close()
    if not top or (len(top) > 1 and top[0][2] == top[1][2]):
        return {"result": "others"}
    track_id, title = top[0][0], top[0][1]
    if not re.search(re.escape(title), final_answer, re.IGNORECASE):
        return {"result": "others"}
    new_items = [r for r in final_queue if r[0] not in init_queue]
    if len(new_items) != 1 or new_items[0][1] != track_id:
        return {"result": "others"}
    if final_queue[-1][0] != new_items[0][0]:
        return {"result": "others"}
    final_ids = {r[0]: (r[1], r[2]) for r in final_queue}
    if any(final_ids.get(item_id) != content for item_id, content in init_queue.items()):
        return {"result": "others"}
    return {"result": "complete"}


def verifier_7(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    playlist = init.execute("SELECT id FROM playlists WHERE user_id = 1 AND name = 'Sunday Brunch'").fetchone()
    if playlist is None:
        return {"result": "others"}
    query = "SELECT pt.playlist_id, pt.track_id, t.explicit FROM playlist_tracks pt JOIN tracks t ON t.id = pt.track_id ORDER BY pt.playlist_id, pt.position, pt.id"
    init_rows = init.execute(query).fetchall()
    final_rows = final.execute(query).fetchall()
    still_exists = final.execute("SELECT COUNT(*) FROM playlists WHERE id = ? AND user_id = 1", (playlist[0],)).fetchone()[0]
    init.close()
    final.close()
    if not still_exists:
        return {"result": "others"}
    init_tracks = [(r[1], r[2]) for r in init_rows if r[0] == playlist[0]]
    final_tracks = [r[1] for r in final_rows if r[0] == playlist[0]]
    if not any(explicit for _, explicit in init_tracks):
        return {"result": "others"}
    if final_tracks != [track_id for track_id, explicit in init_tracks if not explicit]:
        return {"result": "others"}
    if [r[:2] for r in init_rows if r[0] != playlist[0]] != [r[:2] for r in final_rows if r[0] != playlist[0]]:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_8(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    album = init.execute("SELECT id FROM albums WHERE title = 'Static Bloom'").fetchone()
    if album is None:
        return {"result": "others"}
    expected = [(r[0], None) for r in init.execute("SELECT id FROM tracks WHERE album_id = ? ORDER BY popularity DESC, id LIMIT 3", (album[0],)).fetchall()]
    init_mine = [tuple(r) for r in init.execute("SELECT track_id, episode_id FROM queue_items WHERE user_id = 1 ORDER BY position, id").fetchall()]
    final_mine = [tuple(r) for r in final.execute("SELECT track_id, episode_id FROM queue_items WHERE user_id = 1 ORDER BY position, id").fetchall()]
    init_others = init.execute("SELECT id, user_id, track_id, episode_id, position FROM queue_items WHERE user_id <> 1 ORDER BY id").fetchall()
    final_others = final.execute("SELECT id, user_id, track_id, episode_id, position FROM queue_items WHERE user_id <> 1 ORDER BY id").fetchall()
    init.close()
    final.close()
    if len(expected) != 3 or init_mine == expected:
        return {"result": "others"}
    if final_mine != expected:
        return {"result": "others"}
    if init_others != final_others:
        return {"result": "others"}
    return {"result": "complete"}


def verifier_9(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:
    import sqlite3
    import json
    import re
    init = sqlite3.connect(initial_db_path)
    final = sqlite3.connect(final_db_path)
    album = init.execute("SELECT al.id FROM albums al JOIN artists ar ON ar.id = al.artist_id WHERE al.title = 'Glass Horizons' AND ar.name = 'Luna Vale'").fetchone()
    if album is None:
        return {"result": "others"}
    expected = [r[0] for r in init.execute("SELECT id FROM tracks WHERE album_id = ? ORDER BY track_number", (album[0],)).fetchall()]
    init_ids = {r[0] for r in init.execute("SELECT id FROM playlists").fetchall()}
    final_playlists = final.execute("SELECT id, user_id, name, is_public FROM playlists").fetchall()
    matches = [r for r in final_playlists if r[0] not in init_ids and r[1] == 1 and r[2].strip().lower() == "best of luna vale"]
    if len(matches) != 1:
        final.close()
        init.close()
        return {"result": "others"}
    tracks = [r[0] for r in final.execute("SELECT track_id FROM playlist_tracks WHERE playlist_id = ? ORDER BY position, id", (matches[0][0],)).fetchall()]
    init.close()
    final.close()
    if matches[0][3]:
        return {"result": "others"}
    if not expected or tracks != expected:
        return {"result": "others"}
    if not init_ids.issubset({r[0] for r in final_playlists}):
        return {"result": "others"}
    return {"result": "complete"}


VERIFIER_META = [
    {"verification_strategy": "query_based", "reasoning": "Pure lookup: the answer must name Luna Vale's newest full album and its release year, both read from the albums table (EPs excluded, newest release_date first).", "key_checks": ["final_answer contains the title of Luna Vale's most recent album", "final_answer contains that album's release year"]},
    {"verification_strategy": "modification_based", "reasoning": "Two tracks are titled 'Paper Lanterns'; only the Hollow Pines one must be newly liked by user 1, the Paper Satellites one must not be, and existing likes must survive.", "key_checks": ["Hollow Pines' 'Paper Lanterns' is liked by user 1 in the final DB and was not initially", "Paper Satellites' 'Paper Lanterns' was not newly liked", "no previously liked track was unliked"]},
    {"verification_strategy": "query_based", "reasoning": "Pure lookup over followed_artists joined with artists: the answer must name the followed artist with the most monthly listeners and give the exact count (digits with or without separators, or an exact 'N.NN million').", "key_checks": ["final_answer names the followed artist with the highest monthly_listeners", "final_answer states that artist's monthly listener count"]},
    {"verification_strategy": "modification_based", "reasoning": "The 'Old Gym Mix' playlist of user 1 must be gone, 'Road Trip 2023' must keep its id and tracks but be renamed to 'Road Trip Classics' and made public, and no other playlist may disappear.", "key_checks": ["Old Gym Mix row deleted", "Road Trip 2023 row renamed to 'Road Trip Classics' with is_public = 1", "renamed playlist's tracks unchanged", "all other playlists still exist"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's settings must show very_high audio quality and a 6-second crossfade with every other setting unchanged, and playback must be on user 1's own 'Living Room Speaker' (not user 3's device of the same name), which must be the only active device.", "key_checks": ["user_settings.audio_quality = 'very_high' and crossfade_seconds = 6", "other user_settings columns unchanged", "playback_state.device_id is user 1's Living Room Speaker", "only that device is active"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1 must newly follow 'Deep Field Dispatch' and newly save exactly its most recent episode by release_date (which is not the highest episode id), keeping existing follows and saves.", "key_checks": ["followed_podcasts gains Deep Field Dispatch for user 1", "saved_episodes gains exactly the newest Deep Field Dispatch episode", "existing follows and saved episodes kept"]},
    {"verification_strategy": "combined", "reasoning": "The most-played track is computed from user 1's listening_history; it must be appended as the single new, last item of user 1's queue with the old items intact, and the answer must give its title.", "key_checks": ["exactly one new queue item for user 1, holding the most-played track", "the new item is last in the queue", "existing queue items unchanged", "final_answer contains the track title"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's 'Sunday Brunch' must end up holding exactly its initial non-explicit tracks in their original relative order; user 5's playlist of the same name and every other playlist must be untouched.", "key_checks": ["playlist still exists", "final track list equals initial non-explicit tracks in order", "other playlists' tracks unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "User 1's queue must consist of exactly the three most popular 'Static Bloom' tracks, most popular first, with no leftover items; other users' queues must be untouched.", "key_checks": ["user 1 queue equals the top-3 Static Bloom tracks by popularity in descending order", "no episodes or other tracks left in user 1's queue", "other users' queue items unchanged"]},
    {"verification_strategy": "modification_based", "reasoning": "Exactly one new private playlist named 'Best of Luna Vale' must be owned by user 1 and hold the tracks of Luna Vale's 'Glass Horizons' in track-number order; existing playlists must remain.", "key_checks": ["one new user 1 playlist named 'Best of Luna Vale'", "is_public = 0", "its tracks equal the album tracks ordered by track_number", "no existing playlist removed"]},
]
