"""The built-in `spotify` world: scenario, tasks and reference solutions, plus re-exports.

Sources of truth, assembled into AWM JSONL by scripts/build_builtin_worlds.py:
  schema.py (TABLES), sample.py (SAMPLE), spec.py (SPEC), app.py (full_code),
  verifiers.py (VERIFIERS, extracted from the verifier_<i> functions) and this file.
Solution calls use operation ids and flat arguments exactly as an MCP client would send them.
Ids created while solving are predictable: the seed has 9 playlists, so a new one gets id 10.
"""

import ast
import os

from .sample import SAMPLE
from .schema import TABLES
from .spec import SPEC
from .verifiers import VERIFIER_META

__all__ = ["SCENARIO", "DESCRIPTION", "TASKS", "TABLES", "SAMPLE", "SPEC", "FULL_CODE", "VERIFIERS", "VERIFIER_META", "SOLUTIONS"]

SCENARIO = "spotify"

DESCRIPTION = (
    "Spotify is a music and podcast streaming service where listeners search a large catalog of tracks, "
    "albums and artists, build and share playlists, and keep a personal library of liked songs, saved "
    "albums and followed artists. Every track carries its album, credited artists, duration, explicit "
    "flag and a popularity score, and every artist shows a genre and monthly listener count. Users "
    "create, rename, reorder and delete playlists, make them public or private, follow other people's "
    "public playlists and contribute to collaborative ones. The service records a listening history "
    "that powers most-played charts for tracks and artists, and offers new releases and genre-based "
    "recommendations that skip songs the listener already likes. Podcasts sit alongside music: users "
    "follow shows, browse episodes newest first, save episodes and keep a resume position for each. "
    "Playback control covers the up-next queue (append tracks or episodes, remove items, clear it), "
    "shuffle and repeat modes, per-device volume and transferring playback between the listener's "
    "phone, laptop, car and speakers. Account settings include streaming audio quality, crossfade "
    "length, the explicit-content filter, autoplay, loudness normalization, private sessions and app "
    "language. The simulated service is seen from one logged-in premium listener (user 1, Alex "
    "Rivera) in a small community of five users, with a catalog of twelve artists, fourteen releases, "
    "forty-seven tracks and four podcasts."
)

TASKS = [
    "What is the title of the most recent full album released by Luna Vale, and in which year was it released?",
    "Like the song 'Paper Lanterns' by Hollow Pines.",
    "Among the artists I follow, which one has the most monthly listeners, and how many monthly listeners does that artist have?",
    "Delete my playlist 'Old Gym Mix' and rename my playlist 'Road Trip 2023' to 'Road Trip Classics', making it public.",
    "Set my streaming audio quality to 'very_high' with a 6-second crossfade, then transfer playback to my device named 'Living Room Speaker'.",
    "Follow the podcast 'Deep Field Dispatch' and save its most recently released episode to my library.",
    "Find the track I have played the most times in my listening history, add it to the end of my play queue, and tell me its title.",
    "Remove every explicit track from my playlist 'Sunday Brunch', keeping the remaining tracks in their current order.",
    "Replace everything in my play queue with the three most popular tracks from the album 'Static Bloom', ordered from most to least popular.",
    "Create a new private playlist called 'Best of Luna Vale' containing every track from Luna Vale's album 'Glass Horizons' in album order.",
]


def _call(tool, **arguments):
    return {"tool": tool, "arguments": arguments}


SOLUTIONS = [
    {
        "calls": [_call("search_artists", q="Luna Vale"), _call("list_artist_albums", artist_id=1, album_type="album")],
        "final_answer": "Luna Vale's most recent full album is 'Moonlit Letters', released on 2023-09-29 (in 2023).",
    },
    {
        "calls": [_call("search_tracks", q="Paper Lanterns"), _call("like_track", track_id=21)],
        "final_answer": "Done: 'Paper Lanterns' by Hollow Pines is now in your liked songs.",
    },
    {
        "calls": [_call("list_followed_artists")],
        "final_answer": "Of the artists you follow, Kiro Nakamura has the most monthly listeners: 5,410,000.",
    },
    {
        "calls": [
            _call("list_my_playlists"),
            _call("delete_playlist", playlist_id=4),
            _call("update_playlist", playlist_id=3, name="Road Trip Classics", is_public=True),
        ],
        "final_answer": "Deleted 'Old Gym Mix' and renamed 'Road Trip 2023' to 'Road Trip Classics', which is now public.",
    },
    {
        "calls": [
            _call("update_settings", audio_quality="very_high", crossfade_seconds=6),
            _call("list_devices"),
            _call("transfer_playback", device_id=2),
        ],
        "final_answer": "Audio quality is now very high with a 6-second crossfade, and playback moved to your Living Room Speaker.",
    },
    {
        "calls": [
            _call("search_podcasts", q="Deep Field Dispatch"),
            _call("follow_podcast", podcast_id=2),
            _call("list_podcast_episodes", podcast_id=2),
            _call("save_episode", episode_id=5),
        ],
        "final_answer": "You now follow 'Deep Field Dispatch' and its latest episode, 'The Quiet Sun' (2024-01-16), is saved.",
    },
    {
        "calls": [_call("get_my_top_tracks", limit=5), _call("add_to_queue", track_id=13)],
        "final_answer": "Your most-played track is 'Midnight Drive' by The Glass Arcade (4 plays); I added it to the end of your queue.",
    },
    {
        "calls": [
            _call("list_my_playlists"),
            _call("list_playlist_tracks", playlist_id=2),
            _call("remove_track_from_playlist", playlist_id=2, track_id=16),
            _call("remove_track_from_playlist", playlist_id=2, track_id=24),
        ],
        "final_answer": "Removed the explicit tracks 'Wired Roses' and 'Crown Heights' from 'Sunday Brunch'; the other four tracks keep their order.",
    },
    {
        "calls": [
            _call("get_queue"),
            _call("search_albums", q="Static Bloom"),
            _call("list_album_tracks", album_id=5),
            _call("clear_queue"),
            _call("add_to_queue", track_id=16),
            _call("add_to_queue", track_id=18),
            _call("add_to_queue", track_id=19),
        ],
        "final_answer": "Your queue now holds 'Wired Roses', 'Voltage Hymn' and 'Low Battery Love', in that order.",
    },
    {
        "calls": [
            _call("search_albums", q="Glass Horizons"),
            _call("list_album_tracks", album_id=1),
            _call("create_playlist", name="Best of Luna Vale", is_public=False),
        ]
        + [_call("add_track_to_playlist", playlist_id=10, track_id=track_id) for track_id in range(1, 6)],
        "final_answer": "Created the private playlist 'Best of Luna Vale' with all five 'Glass Horizons' tracks in album order.",
    },
]

# Test data, not assembled into JSONL: plausible but wrong answers for the pure query tasks
# (their final DB equals the initial DB); the verifier must reject each one.
WRONG_ANSWERS = {
    0: ["EMPTY RESPONSE FOR TESTING", "Luna Vale's latest album is 'Glass Horizons' from 2021."],
    2: ["EMPTY RESPONSE FOR TESTING", "Marcus Kane, with 6,730,000 monthly listeners.", "Kiro Nakamura, with 4,820,000 monthly listeners."],
}
# Near-miss solutions that a careless agent could produce; the verifier must reject each one.
NEAR_MISSES = {
    1: [("like_track", {"track_id": 38})],
    3: [("delete_playlist", {"playlist_id": 4}), ("update_playlist", {"playlist_id": 3, "name": "Road Trip Classics"})],
    4: [("update_settings", {"audio_quality": "very_high", "crossfade_seconds": 6}), ("transfer_playback", {"device_id": 3})],
    5: [("follow_podcast", {"podcast_id": 2}), ("save_episode", {"episode_id": 6})],
    6: [("add_to_queue", {"track_id": 6})],
    7: [("remove_track_from_playlist", {"playlist_id": 2, "track_id": 16})],
    8: [("add_to_queue", {"track_id": 16}), ("add_to_queue", {"track_id": 18}), ("add_to_queue", {"track_id": 19})],
    9: [("create_playlist", {"name": "Best of Luna Vale", "is_public": True})] + [("add_track_to_playlist", {"playlist_id": 10, "track_id": t}) for t in range(1, 6)],
}

APP_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "app.py")
VERIFIERS_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "verifiers.py")


def read_full_code():
    with open(APP_PATH, encoding="utf-8") as handle:
        return handle.read()


def extract_verifiers():
    """Return the source of verifier_0..verifier_9, each renamed to verify_task_completion."""
    with open(VERIFIERS_PATH, encoding="utf-8") as handle:
        text = handle.read()
    functions = {node.name: node for node in ast.parse(text).body if isinstance(node, ast.FunctionDef)}
    sources = []
    for index in range(len(TASKS)):
        name = f"verifier_{index}"
        code = ast.get_source_segment(text, functions[name])
        sources.append(code.replace(f"def {name}(", "def verify_task_completion(", 1))
    return sources


FULL_CODE = read_full_code()
VERIFIERS = extract_verifiers()

assert len(TASKS) == len(SOLUTIONS) == len(VERIFIERS) == len(VERIFIER_META) == 10
